import { isPlainData } from "./json.js";

/**
 * Structural equality of decoded JSON values, as Go's `reflect.DeepEqual` sees them: key order does
 * not matter, list order does, numbers compare by value (NaN equals nothing). An object that is not
 * decoded JSON (a JMESPath `&expr` value, which has no own keys) equals only itself. One function
 * for every caller: the `Equals` condition operators, JMESPath's `==`, and the mutate and patch
 * code that asks whether anything changed. It runs per review, so it walks keys with `for…in`
 * (no key arrays are allocated), the fastest of the variants it replaced (figures:
 * docs/adr/0004-appendix-figures-in-code.md).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let n = 0;
  for (const k in ra) {
    if (!Object.hasOwn(rb, k) || !jsonEqual(ra[k], rb[k])) return false;
    n++;
  }
  let m = 0;
  for (const k in rb) {
    void k;
    if (++m > n) return false;
  }
  // Two objects without keys are equal when both are decoded JSON (`{}`), not when one is an `&expr`.
  return m === n && (n !== 0 || (isPlainData(a) && isPlainData(b)));
}
