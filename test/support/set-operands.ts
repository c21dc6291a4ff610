/**
 * Generated operands for the set operators (AnyIn, AllIn, AnyNotIn, AllNotIn): value lists as a
 * policy writes them and keys as a resource gives them, with the awkward cases: wildcards on either
 * side, empty strings, nulls, numbers against their `%v` strings, quantities, durations, ranges,
 * JSON-looking strings, nested lists and lists of maps.
 */
import type { JsonObject, JsonValue } from "../../src/engine/index.js";
import { seededRandom } from "./seeded-random.js";

/** `pick(n)`: a whole number below n; `pick.from(list)`: one of its items. */
export interface Picker {
  (n: number): number;
  from<T>(items: readonly T[]): T;
}

export function randomPicker(seed: number): Picker {
  const random = seededRandom(seed);
  const pick = (n: number): number => Math.floor(random() * n);
  return Object.assign(pick, {
    from<T>(items: readonly T[]): T {
      const item = items[pick(items.length)];
      if (item === undefined) throw new Error("pick.from: empty list");
      return item;
    },
  });
}

const WORDS = [
  "NET_BIND_SERVICE",
  "CHOWN",
  "SYS_ADMIN",
  "KILL",
  "name",
  "emptyDir",
  "hostPath",
  "",
  " ",
  "a",
  "b",
  "ab",
  "a b",
];
const WILDCARDS = ["*", "?", "a*", "*b", "a?", "app-*", "db-?", "SYS_*", "*_ADMIN", "?*", "**", "a*b"];
const QUANTITIES = ["100m", "0.1", "1Gi", "1024Mi", "1G", "1e3", "1k", "500Mi", "1.5"];
const DURATIONS = ["1h", "60m", "3600s", "1h30m", "90s", "1.5h", "0s", "-1s"];
const NUMBER_TEXTS = [
  "0",
  "-0",
  "1",
  "1.0",
  "2.5",
  "1e+06",
  "1000000",
  "1e21",
  "0.1",
  "NaN",
  "true",
  "false",
  "<nil>",
  "null",
];
const GO_TEXTS = [
  "map[k:v]",
  "map[]",
  "[a b]",
  "[]",
  "[1 2]",
  '["a","b"]',
  '["a"]',
  '{"k":"v"}',
  "1-5",
  "10Mi-20Mi",
  "1h-2h",
  "a-b",
  "5!-10",
];
const NUMBERS = [0, -0, 1, 2.5, 0.1, 1000000, 1e21, -3, 1024];

function scalarText(pick: Picker): string {
  return pick.from([WORDS, WORDS, WILDCARDS, QUANTITIES, DURATIONS, NUMBER_TEXTS, GO_TEXTS][pick(7)] ?? WORDS);
}

function randomMap(pick: Picker, depth: number): JsonObject {
  const out: JsonObject = {};
  for (let i = pick(3); i > 0; i--) out[pick.from(["k", "a", "name", "constructor"])] = randomItem(pick, depth - 1);
  return out;
}

/** One item of a list or a key: mostly strings, then numbers, booleans, null, lists and maps. */
export function randomItem(pick: Picker, depth = 2): JsonValue {
  const r = pick(depth <= 0 ? 12 : 16);
  if (r < 7) return scalarText(pick);
  if (r < 9) return pick.from(NUMBERS);
  if (r === 9) return pick(2) === 0;
  if (r === 10 || r === 11) return null;
  if (r < 14) return Array.from({ length: pick(3) }, () => randomItem(pick, depth - 1));
  return randomMap(pick, depth);
}

/** A value list fixed in a policy: 0 to 6 items. */
export function randomList(pick: Picker): JsonValue[] {
  return Array.from({ length: pick(7) }, () => randomItem(pick));
}

/** A key: a scalar, a list of 0 to 4 items (a list of maps now and then), a map or null. */
export function randomKey(pick: Picker): JsonValue {
  switch (pick(6)) {
    case 0:
    case 1:
      return randomItem(pick, 0);
    case 2:
    case 3:
      return Array.from({ length: pick(5) }, () => randomItem(pick, 1));
    case 4:
      return Array.from({ length: 1 + pick(3) }, () => randomMap(pick, 1));
    default:
      return pick(2) === 0 ? null : randomMap(pick, 1);
  }
}

/** A set operator's name in one of the spellings evaluation accepts. */
export function randomOperatorName(pick: Picker): string {
  const name = pick.from(["AnyIn", "AllIn", "AnyNotIn", "AllNotIn"]);
  return pick(4) === 0 ? name.toLowerCase() : name;
}
