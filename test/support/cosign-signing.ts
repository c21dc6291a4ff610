/**
 * Cosign signatures made the way `cosign sign --key` makes them, for tests: an ECDSA P-256 key pair
 * (node:crypto), the simple-signing payload naming the image's digest, and the signature over the
 * payload's exact bytes (SHA-256, ASN.1 DER, base64 as cosign's layer annotation holds it).
 */
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";

export interface TestKey {
  /** The public key as a policy gives it (`keys.publicKeys`): PEM, SPKI. */
  readonly publicPem: string;
  readonly privateKey: KeyObject;
}

export interface TestSignature {
  /** The payload's bytes, as the signature layer holds them. */
  readonly payload: Buffer;
  /** base64 DER, as the `dev.cosignproject.cosign/signature` annotation holds it. */
  readonly signature: string;
}

export function ecdsaKey(): TestKey {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(), privateKey };
}

/** cosign's simple-signing payload for `repository` at `digest`, with optional annotations. */
export function simpleSigning(repository: string, digest: string, annotations?: Record<string, string>): Buffer {
  return Buffer.from(
    JSON.stringify({
      critical: {
        identity: { "docker-reference": repository },
        image: { "docker-manifest-digest": digest },
        type: "cosign container image signature",
      },
      optional: annotations ?? null,
    }),
  );
}

export function signPayload(key: TestKey, payload: Buffer): TestSignature {
  return { payload, signature: sign("sha256", payload, key.privateKey).toString("base64") };
}

/** An in-toto statement (v0.1) about `digest` (`sha256:<hex>`) with one predicate, as `cosign attest` makes it. */
export function inTotoStatement(repository: string, digest: string, predicateType: string, predicate: unknown): Buffer {
  return Buffer.from(
    JSON.stringify({
      _type: "https://in-toto.io/Statement/v0.1",
      predicateType,
      subject: [{ name: repository, digest: { sha256: digest.replace(/^sha256:/, "") } }],
      predicate,
    }),
  );
}

/**
 * A DSSE envelope over `statement` signed with `key`, as `cosign attest --key` pushes it as a layer
 * of `sha256-<hex>.att`: the signature is over DSSE's PAE ("DSSEv1" SP len(type) SP type SP
 * len(body) SP body), written by hand here from the DSSE spec. `payloadType` may be changed to test
 * an envelope of another kind.
 */
export function signAttestation(key: TestKey, statement: Buffer, payloadType = "application/vnd.in-toto+json"): Buffer {
  const pae = Buffer.concat([
    Buffer.from(`DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${statement.length} `),
    statement,
  ]);
  const sig = sign("sha256", pae, key.privateKey).toString("base64");
  return Buffer.from(
    JSON.stringify({ payloadType, payload: statement.toString("base64"), signatures: [{ keyid: "", sig }] }),
  );
}
