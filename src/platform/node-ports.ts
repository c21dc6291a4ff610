/**
 * Node implementations of the engine's non-cluster ports: clock, randomness, hashing. node:crypto
 * loads on the first hash or random number (loading it costs a CLI run ~5 ms, and most runs of
 * `bylaw test` or `bylaw apply` never call either).
 */
import { createRequire } from "node:module";
import { verifyCertificateChain } from "./certificate-chain.js";
import { err, ok, type Clock, type Hasher, type Random, type SignatureVerifier } from "../engine/index.js";

type NodeCrypto = typeof import("node:crypto");
let loaded: NodeCrypto | undefined;
const crypto = (): NodeCrypto => (loaded ??= createRequire(import.meta.url)("node:crypto") as NodeCrypto);

export const systemClock: Clock = { nowMillis: () => Date.now() };

export const cryptoRandom: Random = { next: () => crypto().randomInt(0, 2 ** 48) / 2 ** 48 };

export const nodeHasher: Hasher = {
  sha256Hex: (s) => crypto().createHash("sha256").update(s, "utf8").digest("hex"),
  sha1Hex: (s) => crypto().createHash("sha1").update(s, "utf8").digest("hex"),
  md5Hex: (s) => crypto().createHash("md5").update(s, "utf8").digest("hex"),
};

/**
 * Signature checks with node:crypto. A PEM certificate stands for its public key; the key type
 * decides the algorithm (ECDSA and RSA PKCS#1 v1.5 over `hash`, Ed25519 over the bytes themselves).
 */
export const nodeSignatures: SignatureVerifier = {
  verify(check) {
    const c = crypto();
    let key: import("node:crypto").KeyObject;
    try {
      key = check.publicKey.includes("BEGIN CERTIFICATE")
        ? new c.X509Certificate(check.publicKey).publicKey
        : c.createPublicKey(check.publicKey);
    } catch (e) {
      return err("signature-key", `the public key cannot be read: ${(e as Error).message}`);
    }
    try {
      const algorithm =
        key.asymmetricKeyType === "ed25519" || key.asymmetricKeyType === "ed448" ? null : (check.hash ?? "sha256");
      return ok(c.verify(algorithm, check.data, key, check.signature));
    } catch {
      return ok(false);
    }
  },
  verifyChain: verifyCertificateChain,
};
