/**
 * The wording Kyverno's policy webhook gives a rule that reads `element` (or `elementIndex`) outside
 * a foreach (pkg/engine/variables `ValidateElementInForEach`):
 * `variable '<variable>' present outside of foreach at path <path>`, the variable as written between
 * the braces (trimmed) and the path a JSON pointer into the rule (`/validate/message`). Which rules
 * are refused is the callers' (check-policy.ts, check-mutate-generate.ts); this only words it.
 */
import { isObject } from "../api/json.js";

/** Whether a text reads `element` or `elementIndex` inside `{{ }}`. */
export const ELEMENT_VARIABLE = /\{\{[^}]*\belement(Index)?\d*\b/;

const VARIABLE = /\{\{([^{}]*)\}\}/g;

/** The first string under `value` (not inside a foreach) that reads element: its variable and pointer. */
function firstUse(value: unknown, pointer: string): { variable: string; at: string } | undefined {
  if (typeof value === "string") {
    for (const m of value.matchAll(VARIABLE))
      if (ELEMENT_VARIABLE.test(m[0])) return { variable: (m[1] ?? "").trim(), at: pointer };
    return undefined;
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : isObject(value)
      ? Object.entries(value)
      : [];
  for (const [key, v] of entries) {
    if (key === "foreach") continue;
    const found = firstUse(v, `${pointer}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Kyverno's message for `value` (found at `pointer` in the rule, e.g. `/validate`). */
export function elementOutsideForeach(value: unknown, pointer: string): string {
  const found = firstUse(value, pointer);
  return found === undefined
    ? `variable 'element' present outside of foreach at path ${pointer}`
    : `variable '${found.variable}' present outside of foreach at path ${found.at}`;
}
