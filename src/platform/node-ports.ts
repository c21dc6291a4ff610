/**
 * Node implementations of the engine's non-cluster ports: clock, randomness, hashing. node:crypto
 * loads on the first hash or random number (loading it costs a CLI run ~5 ms, and most runs of
 * `bylaw test` or `bylaw apply` never call either).
 */
import { createRequire } from "node:module";
import type { Clock, Hasher, Random } from "../engine/index.js";

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
