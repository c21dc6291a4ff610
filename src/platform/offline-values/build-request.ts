/**
 * Build the engine request for one resource and policy from CLI inputs, as `kyverno apply/test` do:
 * globalValues and per-resource values become variables (`request.operation` among them picks the
 * operation), per-rule values are offered to each rule, namespace labels come from the values file.
 */
import {
  type CompiledPolicy,
  type EngineRequest,
  type JsonValue,
  type Operation,
  type RequestUserInfo,
  type Resource,
  resourceName,
  resourceNamespace,
} from "../../engine/index.js";
import { ruleValuesFor, type ValuesSpec } from "./values-file.js";
import { subresourceRequestOf } from "./values-subresources.js";

const OPERATIONS = new Set<string>(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

/**
 * A result's `operation` (forced) UPDATE is a real UPDATE request: object = oldObject = the resource.
 * DELETE sets object to null and oldObject to the resource. A values file's `request.operation: UPDATE`
 * only changes the JSON context (`request.operation`, and `request.oldObject` = the resource, set
 * before the values, as Kyverno does, so values for `request.oldObject.*` are layered on it): Kyverno's
 * CLI then still fails an Enforce rule the old object also fails, i.e. allowExistingViolations does
 * not apply (corpus: openshift/disallow-self-provisioner-binding, other/allowed-label-changes).
 */
export function buildRequest(
  resource: Resource,
  policy: CompiledPolicy,
  values: ValuesSpec,
  userInfo: RequestUserInfo | undefined,
  forced?: Operation,
): EngineRequest {
  const given: Record<string, JsonValue> = {
    ...values.globalValues,
    ...(values.resourceValues.get(policy.name)?.get(resourceName(resource)) ?? {}),
    ...values.setValues,
  };
  const requested = given["request.operation"];
  const operation: Operation =
    forced ?? (typeof requested === "string" && OPERATIONS.has(requested) ? (requested as Operation) : "CREATE");
  // Variables are layered in insertion order: the old object first, the values after it.
  // Without a userinfo file Kyverno's CLI leaves request.userInfo null (no admission user); values may set it.
  const variables: Record<string, JsonValue> = userInfo === undefined ? { "request.userInfo": null } : {};
  if (operation === "UPDATE" && forced === undefined) variables["request.oldObject"] = resource;
  Object.assign(variables, given);
  variables["request.operation"] = operation;
  return {
    // A resource of a values `subresources` entry's kind is a request on its parent's subresource.
    ...(subresourceRequestOf(values.subresources, resource) ?? {}),
    resource: operation === "DELETE" ? {} : resource,
    ...((forced === "UPDATE" && operation === "UPDATE") || operation === "DELETE" ? { oldResource: resource } : {}),
    operation,
    ...(userInfo !== undefined ? { userInfo } : {}),
    namespaceLabels: values.namespaceLabels.get(resourceNamespace(resource)) ?? {},
    ...namespaceObjectOf(values, resource),
    variables,
    ruleVariables: (p, r) => ruleValuesFor(values, p, r)?.values,
    ruleForeachValues: (p, r) => {
      const found = ruleValuesFor(values, p, r)?.foreachValues;
      return found !== undefined && Object.keys(found).length > 0 ? found : undefined;
    },
  };
}

/**
 * The requests `processResource` asks for, one resource and policy at a time: `finish` adds what
 * the caller adds to every request (exceptions, CRD kinds). A policy the values give no values of
 * its own for the resource (the only part of a request that depends on the policy) gets the
 * resource's one shared request, so processResource prepares it once for all of them (base
 * context and match decisions worked out once, as the webhook does per review).
 */
export function requestsFor(options: {
  readonly values: ValuesSpec;
  readonly userInfo: RequestUserInfo | undefined;
  /** A test result's operation, forced on every request (buildRequest's `forced`). */
  readonly operation?: Operation | undefined;
  readonly finish: (request: EngineRequest) => EngineRequest;
}): (resource: Resource, policy: CompiledPolicy) => EngineRequest {
  const { values, userInfo, operation, finish } = options;
  const shared = new WeakMap<Resource, EngineRequest>();
  return (resource, policy) => {
    const own = values.resourceValues.get(policy.name)?.has(resourceName(resource)) === true;
    const hit = own ? undefined : shared.get(resource);
    if (hit !== undefined) return hit;
    const request = finish(buildRequest(resource, policy, values, userInfo, operation));
    if (!own) shared.set(resource, request);
    return request;
  };
}

/**
 * The resource's Namespace as the values file gives it (CEL `namespaceObject`); null for a namespace
 * it does not list: Kyverno's CLI resolves the policies.kyverno.io kinds' Namespace from the values
 * alone (with `--cluster` too), so there they read null.
 */
function namespaceObjectOf(values: ValuesSpec, resource: Resource): { namespaceObject?: Resource | null } {
  const ns = resourceNamespace(resource);
  if (ns === "") return {};
  return { namespaceObject: values.namespaceObjects.get(ns) ?? null };
}
