/**
 * A ValidatingAdmissionPolicy with bindings when a test gave `clusterResources`: Kyverno 1.19's test
 * then runs its PolicyProcessor with `Cluster: true` and a fake client holding the test's objects, so
 * `admissionpolicy.Validate` takes `processVAPWithClient` (pkg/admissionpolicy), not the offline path
 * (evaluate.ts). What that path does, and what Bylaw answers:
 * - the Namespace of a namespaced resource is read from the objects (`Namespaces().Get`); its labels
 *   decide namespaceSelectors and it is `namespaceObject`. Not there: Kyverno gives the policy no
 *   result and logs the error; Bylaw gives none where the policy does not match the resource
 *   anyway, and an error naming the Namespace where it does;
 * - the policy's own matchConstraints must match (`DefinitionMatches`; unset selectors match all);
 *   no match: no result;
 * - each binding in turn whose matchResources match (none: every resource; `BindingMatches`) runs
 *   the policy, and the LAST one's outcome is the result, as offline;
 * - a binding's paramRef reads params as `CollectParams` does: of the policy's paramKind, in
 *   `paramRef.namespace` or else the request's namespace for a namespaced kind, by name or selector
 *   (params/resolve.ts). One object is `params`; several are one list object `{items: [...]}`.
 *   Where Kyverno's CLI stops with an error (a name not found, none found under Deny) or crashes
 *   (no paramKind; none found otherwise: it reads the first of no objects), Bylaw answers an error
 *   naming the binding and the cause, never a pass;
 * - a cluster-scoped resource (Kyverno's CLI crashes on any paramRef there: it reads a nil
 *   Namespace's name) is answered as the API server answers it (checked against kube-apiserver
 *   1.35 by test/cluster/vap-oracle.cluster-test.ts): a cluster-scoped paramKind's params, or a
 *   namespaced paramKind's in `paramRef.namespace`; a namespaced paramKind without
 *   `paramRef.namespace` finds no params there, so `parameterNotFoundAction` decides: Deny is the
 *   API server's "no params found for policy binding with `Deny` parameterNotFoundAction" (it
 *   denies under failurePolicy Fail; Bylaw: an error), Allow (or unset) skips the binding.
 */
import { isObject, type JsonObject } from "../../api/json.js";
import type { RuleResult } from "../../api/rule-result.js";
import type { MatchRequest } from "../../match/index.js";
import type { CelServices } from "../kyverno/index.js";
import { NAMESPACED_PARAMS_FOR_CLUSTER_SCOPED, resolveParams } from "../params/index.js";
import type { CelRuleInput } from "../validate-rule/index.js";
import { toCel } from "../values.js";
import type { CompiledAdmissionPolicy, CompiledBinding } from "./compiled.js";
import { evaluateOnce, resultOf, type Outcome } from "./run-once.js";

function text(o: unknown, key: string): string {
  const v = isObject(o) ? o[key] : undefined;
  return typeof v === "string" ? v : "";
}

function labelsOf(ns: JsonObject): Record<string, string> {
  const l = isObject(ns["metadata"]) ? ns["metadata"]["labels"] : undefined;
  const out: Record<string, string> = {};
  if (isObject(l)) for (const [k, v] of Object.entries(l)) if (typeof v === "string") out[k] = v;
  return out;
}

/** The request's namespace ("" for a cluster-scoped resource and for a Namespace itself, as `Validate` has it). */
function namespaceOf(req: MatchRequest): string {
  const r = req.resource;
  if (req.gvk.kind === "Namespace" && req.gvk.group === "" && req.gvk.version === "v1") return "";
  return text(r["metadata"], "namespace");
}

/** The Namespace object, or why it cannot be read. */
function readNamespace(name: string, services: CelServices): JsonObject | string {
  const got = services.ports.context.getResource?.({ apiVersion: "v1", resource: "namespaces", namespace: "", name });
  if (got === undefined) return "no objects to read it from";
  if (!got.ok) return got.error.message;
  return isObject(got.value) ? got.value : "not an object";
}

export function evaluateWithCluster(
  ap: CompiledAdmissionPolicy,
  req: MatchRequest,
  input: CelRuleInput,
  services: CelServices,
): RuleResult | undefined {
  const nsName = namespaceOf(req);
  const got = nsName === "" ? undefined : readNamespace(nsName, services);
  const namespace = got !== undefined && typeof got !== "string" ? got : undefined;
  // A Namespace not among the objects: Kyverno gives the policy no result either way (the lookup errs); Bylaw is silent only where the policy does not match anyway.
  const matchReq: MatchRequest =
    nsName === "" ? req : { ...req, namespaceLabels: namespace !== undefined ? labelsOf(namespace) : {} };
  const runInput: CelRuleInput = namespace !== undefined ? { ...input, namespaceObject: toCel(namespace) } : input;
  const definition = ap.body.constraints.decide(matchReq);
  if (definition.kind === "no-match") return undefined;
  if (definition.kind === "error") return resultOf(ap, undefined, { status: "error", message: definition.message });
  if (typeof got === "string")
    return resultOf(ap, undefined, {
      status: "error",
      message: `namespace ${nsName}: ${got} (with clusterResources, Kyverno's CLI reads the resource's Namespace from them and gives no result without it)`,
    });
  let last: RuleResult | undefined;
  for (const binding of ap.bindings) {
    const verdict = binding.constraints?.decide(matchReq);
    if (verdict?.kind === "no-match") continue;
    if (verdict?.kind === "error")
      return resultOf(ap, binding, { status: "error", message: `binding ${binding.name}: ${verdict.message}` });
    const outcome = runBinding(ap, binding, nsName, runInput, services);
    // The API server skips a binding that finds no params under parameterNotFoundAction Allow.
    if (outcome === undefined) continue;
    last = resultOf(ap, binding, outcome);
  }
  return last;
}

function runBinding(
  ap: CompiledAdmissionPolicy,
  binding: CompiledBinding,
  nsName: string,
  input: CelRuleInput,
  services: CelServices,
): Outcome | undefined {
  const ref = binding.paramRef;
  if (ref === undefined) return evaluateOnce(ap.body, input, null, services);
  const fail = (message: string): Outcome => ({ status: "error", message: `binding ${binding.name}: ${message}` });
  if (ap.paramKind === undefined)
    return fail(
      "paramRef is set but the policy has no spec.paramKind to read params of (Kyverno's CLI cannot evaluate this binding)",
    );
  // A cluster-scoped resource (nsName ""): resolveParams applies the API server's rule for it.
  const found = resolveParams(ap.paramKind, ref, nsName, services.ports.context);
  if (found.kind === "config-error" && found.message === NAMESPACED_PARAMS_FOR_CLUSTER_SCOPED)
    return ref.notFound === "Deny"
      ? fail(
          "no params found for policy binding with `Deny` parameterNotFoundAction (a cluster-scoped resource, and a namespaced paramKind without paramRef.namespace)",
        )
      : undefined;
  if (found.kind === "none")
    return fail(
      `${found.message}: Kyverno's CLI, with clusterResources, cannot evaluate a binding whose paramRef finds nothing`,
    );
  if (found.kind !== "params") return fail(found.message);
  const objects = found.params.filter((p): p is JsonObject => p !== null);
  const params = objects.length === 1 ? (objects[0] ?? null) : { items: objects };
  return evaluateOnce(ap.body, input, params, services);
}
