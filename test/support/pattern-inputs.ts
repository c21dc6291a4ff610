/**
 * Generated validate patterns and resources for differential tests: anchors of every kind on few
 * keys (so that patterns and resources often meet), wildcards, operators, ranges, quantities,
 * durations, numbers against strings, nulls, lists of maps, and wildcard metadata keys. Resources
 * are often shaped after the pattern, so that passes and skips come as often as failures.
 */
import type { JsonObject, JsonValue } from "../../src/engine/index.js";
import type { Picker } from "./set-operands.js";

const KEYS = ["a", "b", "c", "constructor"];
const PREFIXES = ["", "", "", "(", "=(", "X(", "^(", "<(", "+("];
const PATTERN_LEAVES: JsonValue[] = [
  "x",
  "y",
  "*",
  "?*",
  "x*",
  "!x",
  ">1",
  "<5",
  ">=1Gi",
  "<=500m",
  "1-3",
  "1Mi-2Gi",
  "!1-3",
  ">1h",
  "<30m",
  "x | y",
  "false",
  "",
  "null",
  "1",
  "1.0",
  1,
  2,
  0.5,
  true,
  false,
  null,
];
const RESOURCE_LEAVES: JsonValue[] = [
  "x",
  "y",
  "xy",
  "",
  "false",
  "1",
  "1.0",
  "1Gi",
  "512Mi",
  "100m",
  "90m",
  "2h",
  "null",
  0,
  1,
  2,
  4,
  0.5,
  true,
  false,
  null,
];

export function patternLeaf(pick: Picker): JsonValue {
  return pick.from(PATTERN_LEAVES);
}

export function genPattern(pick: Picker, depth: number): JsonValue {
  const r = pick(depth <= 0 ? 1 : 6);
  if (r === 0 || r === 1 || depth <= 0) return patternLeaf(pick);
  if (r <= 3) return genPatternMap(pick, depth);
  switch (pick(4)) {
    case 0:
      return [];
    case 1:
      return [genPatternMap(pick, depth - 1)];
    case 2:
      return [patternLeaf(pick)];
    default:
      return [[genPattern(pick, depth - 1)], [genPattern(pick, depth - 1)]];
  }
}

export function genPatternMap(pick: Picker, depth: number): JsonObject {
  const out: JsonObject = {};
  const n = pick(4);
  for (let i = 0; i < n; i++) {
    const prefix = pick.from(PREFIXES);
    const key = pick.from(KEYS);
    const raw = prefix === "" ? key : `${prefix}${key})`;
    out[raw] = prefix === "^(" && pick(3) > 0 ? [genPatternMap(pick, depth - 1)] : genPattern(pick, depth - 1);
  }
  return out;
}

export function genResource(pick: Picker, depth: number): JsonValue {
  const r = pick(depth <= 0 ? 1 : 5);
  if (r === 0 || depth <= 0) return pick.from(RESOURCE_LEAVES);
  if (r <= 2) {
    const out: JsonObject = {};
    for (let i = pick(4); i > 0; i--) out[pick.from(KEYS.slice(0, 3))] = genResource(pick, depth - 1);
    return out;
  }
  return Array.from({ length: pick(4) }, () => genResource(pick, depth - 1));
}

/** A resource shaped after a pattern, with random changes. */
export function resourceLike(pick: Picker, pattern: JsonValue): JsonValue {
  if (pick(8) === 0) return genResource(pick, 2);
  if (Array.isArray(pattern)) {
    const first = pattern[0];
    if (first === undefined) return [];
    if (Array.isArray(first)) return pattern.map((p) => resourceLike(pick, p));
    return Array.from({ length: pick(4) }, () => resourceLike(pick, first));
  }
  if (pattern !== null && typeof pattern === "object") {
    const out: JsonObject = {};
    for (const [raw, value] of Object.entries(pattern)) {
      if (pick(4) === 0) continue;
      const key = raw.endsWith(")") ? raw.slice(raw.indexOf("(") + 1, -1) : raw;
      out[key] = resourceLike(pick, value);
    }
    return out;
  }
  return pick(2) === 0 ? pattern : pick.from(RESOURCE_LEAVES);
}

/** Labels under wildcard, anchored and plain keys, for `metadata.labels` patterns. */
export function genLabels(pick: Picker): { pattern: JsonObject; labels: Record<string, string> } {
  const labelKeys = ["app", "team", "app.kubernetes.io/name"];
  const patternKeys = ["app*", "=(te?m)", "(app.*)", "*", "team", "X(a*)"];
  const labels: Record<string, string> = {};
  for (let i = pick(3); i > 0; i--) labels[pick.from(labelKeys)] = pick.from(["web", "db", ""]);
  const pattern: JsonObject = {};
  for (let i = 1 + pick(2); i > 0; i--) pattern[pick.from(patternKeys)] = pick.from(["web", "?*", "db | web", "*"]);
  return { pattern, labels };
}
