/**
 * The `params` a ValidatingAdmissionPolicyBinding's paramRef gives, as Kyverno 1.19's CLI chooses
 * them offline (pkg/admissionpolicy `processVAPWithoutClient` and `matchesSelector`), which is not
 * how the API server chooses them (docs/vap-cli-vs-api-server.md):
 * - the candidates are every parameter object given (a test's `paramResources`), of any kind and
 *   in any namespace: paramKind is not consulted;
 * - `selector`: every candidate whose labels it matches, handed over together as ONE value, a list
 *   object `{items: [...]}`; none matched: `null`;
 * - otherwise `name` (or, without a name, `namespace`): the first candidate with that name (or in
 *   that namespace); none: `null`;
 * - parameterNotFoundAction is not consulted: no object found evaluates the policy with `params`
 *   null (an expression that reads it is then an evaluation error, never a pass).
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import { evaluateSelector } from "../../match/index.js";
import type { CompiledParamRef } from "./param-ref.js";

type BindingParams =
  { readonly ok: true; readonly params: JsonObject | null } | { readonly ok: false; readonly message: string };

function metaText(o: JsonObject, key: string): string {
  const m = o["metadata"];
  const v = isObject(m) ? m[key] : undefined;
  return typeof v === "string" ? v : "";
}

function labelsOf(o: JsonObject): Record<string, string> {
  const m = o["metadata"];
  const l = isObject(m) ? m["labels"] : undefined;
  const out: Record<string, string> = {};
  if (isObject(l)) for (const [k, v] of Object.entries(l)) if (typeof v === "string") out[k] = v;
  return out;
}

export function selectBindingParams(ref: CompiledParamRef | undefined, given: readonly JsonValue[]): BindingParams {
  if (ref === undefined) return { ok: true, params: null };
  const objects = given.filter(isObject);
  if (ref.selector !== undefined) {
    const items: JsonObject[] = [];
    for (const o of objects) {
      const r = evaluateSelector(ref.selector, labelsOf(o));
      // Kyverno drops a selector it cannot parse and then matches nothing; Bylaw names it instead.
      if (!r.ok) return { ok: false, message: `paramRef.selector: ${r.error}` };
      if (r.matched) items.push(o);
    }
    return { ok: true, params: items.length > 0 ? { items } : null };
  }
  const found = objects.find((o) =>
    ref.name !== undefined
      ? metaText(o, "name") === ref.name
      : ref.namespace !== "" && metaText(o, "namespace") === ref.namespace,
  );
  return { ok: true, params: found ?? null };
}
