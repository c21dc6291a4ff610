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

/** Deep structural equality (`==` in JMESPath). Numbers compare by value, so 1 == 1.0; NaN != NaN. */
export { jsonEqual as deepEqual } from "../api/json-equal.js";
