/**
 * Build the engine request for one resource and policy from CLI inputs, as `kyverno apply/test` do:
 * globalValues and per-resource values become variables (`request.operation` among them picks the
 * operation), per-rule values are offered to each rule, namespace labels come from the values file.
 */
import { type CompiledPolicy, type EngineRequest, type JsonValue, type Operation, type RequestUserInfo, type Resource, resourceName, resourceNamespace } from "../../engine/index.js";
import type { ValuesSpec } from "../test-suite/values-file.js";

const OPERATIONS = new Set<string>(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

/**
 * A result's `operation` (forced) UPDATE is a real UPDATE request: object = oldObject = the resource.
 * DELETE sets object to null and oldObject to the resource. A values file's `request.operation: UPDATE`
 * only changes the JSON context (`request.operation`, and `request.oldObject` = the resource): Kyverno's
 * CLI then still fails an Enforce rule the old object also fails, i.e. allowExistingViolations does
 * not apply (corpus: openshift/disallow-self-provisioner-binding, other/allowed-label-changes).
 */
export function buildRequest(resource: Resource, policy: CompiledPolicy, values: ValuesSpec, userInfo: RequestUserInfo | undefined, forced?: Operation): EngineRequest {
  const variables: Record<string, JsonValue> = {
    ...values.globalValues,
    ...(values.resourceValues.get(policy.name)?.get(resourceName(resource)) ?? {}),
  };
  const requested = variables["request.operation"];
  const operation: Operation = forced ?? (typeof requested === "string" && OPERATIONS.has(requested) ? (requested as Operation) : "CREATE");
  variables["request.operation"] = operation;
  if (operation === "UPDATE" && forced === undefined) variables["request.oldObject"] = resource;
  return {
    resource: operation === "DELETE" ? {} : resource,
    ...((forced === "UPDATE" && operation === "UPDATE") || operation === "DELETE" ? { oldResource: resource } : {}),
    operation,
    ...(userInfo !== undefined ? { userInfo } : {}),
    namespaceLabels: values.namespaceLabels.get(resourceNamespace(resource)) ?? {},
    variables,
    ruleVariables: (p, r) => values.ruleValues.get(p)?.get(r),
  };
}
