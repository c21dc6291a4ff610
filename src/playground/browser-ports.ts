/**
 * The engine's non-cluster ports in a browser (and in any JavaScript runtime with Web Crypto):
 * the clock, Web Crypto's random numbers, hashing by @noble/hashes (synchronous, as the engine
 * asks; Web Crypto's digest is asynchronous only). Signature checks are an error naming what to run
 * instead: Web Crypto verifies only asynchronously, and a rule never passes on a check nobody made.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { md5, sha1 } from "@noble/hashes/legacy.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { err, type Clock, type Hasher, type Random, type SignatureVerifier } from "../engine/index.js";

interface WebCrypto {
  getRandomValues<T extends Uint32Array>(array: T): T;
}

export const browserClock: Clock = { nowMillis: () => Date.now() };

export const browserRandom: Random = {
  next() {
    const crypto = (globalThis as { crypto?: WebCrypto }).crypto;
    if (crypto === undefined) throw new Error("this runtime has no Web Crypto for random numbers");
    const [high = 0, low = 0] = crypto.getRandomValues(new Uint32Array(2));
    // 48 random bits, as the Node port gives.
    return ((high & 0xffff) * 2 ** 32 + low) / 2 ** 48;
  },
};

export const browserHasher: Hasher = {
  sha256Hex: (s) => bytesToHex(sha256(utf8ToBytes(s))),
  sha1Hex: (s) => bytesToHex(sha1(utf8ToBytes(s))),
  md5Hex: (s) => bytesToHex(md5(utf8ToBytes(s))),
};

const NO_SIGNATURES =
  "the playground checks no signatures (the browser verifies only asynchronously): run `bylaw apply`";

export const browserSignatures: SignatureVerifier = {
  verify: () => err("signature-unavailable", NO_SIGNATURES),
  verifyChain: () => err("signature-unavailable", NO_SIGNATURES),
};
