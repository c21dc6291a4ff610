/**
 * The parameter objects a validate.cel rule's paramKind/paramRef selects, as Kyverno's CEL handler
 * collects them (pkg/engine/handlers/validation/validate_cel.go `collectParams`): of the paramKind;
 * in `paramRef.namespace`, or else the request's namespace, when the kind is namespaced (a
 * cluster-scoped request then has none to offer: a configuration error); by `name` (not found is an
 * error, whatever parameterNotFoundAction says, as Kyverno's client Get answers), or every object
 * `selector` picks (none: Deny is an error, Allow or unset finds none).
 *
 * Objects come from the engine's ContextSources port (`paramObjects`): offline, a test's
 * `paramResources` and `bylaw apply`'s resources. A port that offers none is an error, never
 * "not found". Whether a kind is namespaced: Kubernetes' answer for built-in kinds; for others, whether
 * any object of the kind has a namespace. An object of a namespaced kind written without one is in
 * `default`, as kubectl would create it.
 */
import { isObject, type JsonObject } from "../../api/json.js";
import { evaluateSelector } from "../../match/index.js";
import type { ContextSources } from "../../ports.js";
import { builtInKindNamespaced } from "../validating-policy/resource-names.js";
import type { CompiledParamRef, ParamKindRef } from "./param-ref.js";

export type ParamOutcome =
  /** The objects to evaluate with, each in turn (`[null]`: no params, as without paramKind or paramRef). */
  | { readonly kind: "params"; readonly params: readonly (JsonObject | null)[] }
  /** None found by a selector, and parameterNotFoundAction not Deny: no validation runs. */
  | { readonly kind: "none"; readonly message: string }
  /** The binding cannot be configured for this request (Kubernetes answers under failurePolicy). */
  | { readonly kind: "config-error"; readonly message: string }
  /** The objects could not be read at all: always an error. */
  | { readonly kind: "unavailable"; readonly message: string };

const NO_PARAMS: ParamOutcome = { kind: "params", params: [null] };

/** A namespaced paramKind, no paramRef.namespace and a cluster-scoped request: no namespace to read params in. */
export const NAMESPACED_PARAMS_FOR_CLUSTER_SCOPED =
  "cannot use namespaced paramRef in policy binding that matches cluster-scoped resources";

function str(o: JsonObject, key: string): string {
  const v = o[key];
  return typeof v === "string" ? v : "";
}

function meta(o: JsonObject): JsonObject {
  return isObject(o["metadata"]) ? o["metadata"] : {};
}

function labels(o: JsonObject): Record<string, string> {
  const l = meta(o)["labels"];
  const out: Record<string, string> = {};
  if (isObject(l)) for (const [k, v] of Object.entries(l)) if (typeof v === "string") out[k] = v;
  return out;
}

export function resolveParams(
  paramKind: ParamKindRef | undefined,
  ref: CompiledParamRef | undefined,
  requestNamespace: string,
  context: ContextSources,
): ParamOutcome {
  if (paramKind === undefined || ref === undefined) return NO_PARAMS;
  const what = `${paramKind.kind} (${paramKind.apiVersion})`;
  if (context.paramObjects === undefined)
    return {
      kind: "unavailable",
      message: `params of kind ${what}: no parameter objects were given (a test's paramResources, bylaw apply's resources)`,
    };
  const listed = context.paramObjects(paramKind);
  if (!listed.ok) return { kind: "unavailable", message: `params of kind ${what}: ${listed.error.message}` };
  const objects = listed.value
    .filter(isObject)
    .filter((o) => str(o, "kind") === paramKind.kind && str(o, "apiVersion") === paramKind.apiVersion);
  const namespaced = builtInKindNamespaced(paramKind.kind) ?? objects.some((o) => str(meta(o), "namespace") !== "");
  let namespace = "";
  if (namespaced) {
    namespace = ref.namespace !== "" ? ref.namespace : requestNamespace;
    if (namespace === "") return { kind: "config-error", message: NAMESPACED_PARAMS_FOR_CLUSTER_SCOPED };
  } else if (ref.namespace !== "") {
    return {
      kind: "config-error",
      message: `paramRef.namespace must not be provided for a cluster-scoped \`paramKind\` (${what})`,
    };
  }
  const inScope = objects.filter((o) => !namespaced || (str(meta(o), "namespace") || "default") === namespace);
  let found: JsonObject[];
  if (ref.name !== undefined) {
    found = inScope.filter((o) => str(meta(o), "name") === ref.name).slice(0, 1);
  } else {
    found = [];
    // A binding Kyverno's CLI accepted with neither name nor selector collects nothing (pkg/admissionpolicy `CollectParams`).
    if (ref.selector === undefined) return notFound(ref, what, namespaced ? ` in namespace ${namespace}` : "");
    for (const o of inScope) {
      const r = evaluateSelector(ref.selector, labels(o));
      if (!r.ok) return { kind: "config-error", message: `paramRef.selector: ${r.error}` };
      if (r.matched) found.push(o);
    }
  }
  if (found.length > 0) return { kind: "params", params: found };
  return notFound(ref, what, namespaced ? ` in namespace ${namespace}` : "");
}

function notFound(ref: CompiledParamRef, what: string, where: string): ParamOutcome {
  if (ref.name !== undefined) return { kind: "config-error", message: `${what} "${ref.name}" not found${where}` };
  const which =
    ref.selector !== undefined
      ? `${what} matching paramRef.selector`
      : `${what} (paramRef has neither name nor selector)`;
  if (ref.notFound === "Deny")
    return { kind: "config-error", message: `no params found (no ${which}${where}; parameterNotFoundAction Deny)` };
  return { kind: "none", message: `no ${which}${where}` };
}
