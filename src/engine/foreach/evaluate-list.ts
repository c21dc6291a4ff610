/**
 * A foreach `list`: a JMESPath expression (it may itself hold `{{ }}`) evaluated on the context.
 * A missing key (`Unknown key`) or null means there is nothing to iterate; anything but a list is an error.
 */
import type { JsonValue } from "../api/json.js";
import { failureNamedBy, substituteString, type SubstitutionScope } from "../variables/index.js";
import { ElementScopes } from "./element-scopes.js";
import { textOf } from "../api/json.js";

type ListOutcome =
  | { readonly kind: "items"; readonly items: readonly JsonValue[] }
  | { readonly kind: "missing" }
  | { readonly kind: "error"; readonly message: string };

export function evaluateList(list: string, vars: SubstitutionScope): ListOutcome {
  const expr = list.includes("{{") ? substituteString(list, vars) : { ok: true as const, value: list as JsonValue };
  if (!expr.ok) return { kind: "error", message: expr.error.message };
  const query = textOf(expr.value);
  // A list naming a context entry that failed to load fails with it (Kyverno's deferred loading).
  const unloaded = failureNamedBy(query, vars.deferred);
  if (unloaded !== undefined) return { kind: "error", message: unloaded.message };
  let value: JsonValue;
  try {
    value = vars.cache.get(query).search(vars.data, vars.fnctx);
  } catch (e) {
    const msg = (e as Error).message;
    if (/Unknown key/.test(msg)) return { kind: "missing" };
    return { kind: "error", message: msg };
  }
  if (value === null) return { kind: "missing" };
  if (!Array.isArray(value))
    return { kind: "error", message: `expected an array, got ${typeof value === "object" ? "object" : typeof value}` };
  return { kind: "items", items: value };
}

/**
 * The scope for one element: `element`/`elementIndex`, and `element<N>`/`elementIndex<N>` for
 * nesting level N. A caller with many elements of one list makes `ElementScopes` once instead.
 */
export function withElement(
  vars: SubstitutionScope,
  element: JsonValue,
  index: number,
  depth: number,
): SubstitutionScope {
  return new ElementScopes(vars, depth).at(element, index);
}
