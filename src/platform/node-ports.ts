/** Node implementations of the engine's non-cluster ports: clock, randomness, hashing. */
import { createHash, randomInt } from "node:crypto";
import type { Clock, Hasher, Random } from "../engine/index.js";

export const systemClock: Clock = { nowMillis: () => Date.now() };

export const cryptoRandom: Random = { next: () => randomInt(0, 2 ** 48) / 2 ** 48 };

export const nodeHasher: Hasher = {
  sha256Hex: (s) => createHash("sha256").update(s, "utf8").digest("hex"),
  sha1Hex: (s) => createHash("sha1").update(s, "utf8").digest("hex"),
  md5Hex: (s) => createHash("md5").update(s, "utf8").digest("hex"),
};
