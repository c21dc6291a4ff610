/**
 * JMESPath truthiness and equality as go-jmespath implements them (`isFalse`, `reflect.DeepEqual`).
 */
import type { Value } from "./eval-state.js";
import { isExprRef } from "./eval-state.js";

/** False, null, "", [] and {} are false; everything else (numbers included, even 0) is true. */
export function isFalse(v: Value): boolean {
  if (v === null || v === false || v === "") return true;
  if (typeof v !== "object") return false;
  if (Array.isArray(v)) return v.length === 0;
  if (isExprRef(v)) return false;
  return !hasAnyKey(v);
}

function hasAnyKey(o: object): boolean {
  for (const k in o) {
    void k;
    return true;
  }
  return false;
}

function keyCount(o: object): number {
  let n = 0;
  for (const k in o) {
    void k;
    n++;
  }
  return n;
}

/** Deep structural equality (`==` in JMESPath). Numbers compare by value, so 1 == 1.0; NaN != NaN. */
export function deepEqual(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return typeof a === "number" && typeof b === "number" && a === b;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (Array.isArray(b) || isExprRef(a) || isExprRef(b)) return false;
  let count = 0;
  for (const k in a) {
    if (!Object.hasOwn(b, k)) return false;
    if (!deepEqual(a[k] ?? null, b[k] ?? null)) return false;
    count++;
  }
  return count === keyCount(b);
}
