/**
 * The engine request for one library check: the operation decides which object the rules see
 * (DELETE: the old object; UPDATE: both), as in an admission request.
 */
import type { AnyCompiledException, EngineRequest, JsonValue, Resource } from "../engine/index.js";
import type { CheckOptions } from "./types.js";

export function checkRequest(
  resource: Resource,
  options: CheckOptions,
  exceptions: readonly AnyCompiledException[],
): EngineRequest {
  const operation = options.operation ?? "CREATE";
  const variables: Record<string, JsonValue> = { ...options.variables, "request.operation": operation };
  const old =
    operation === "DELETE" ? resource : operation === "UPDATE" ? (options.oldResource ?? resource) : undefined;
  return {
    resource: operation === "DELETE" ? {} : resource,
    ...(old !== undefined ? { oldResource: old } : {}),
    operation,
    ...(options.userInfo !== undefined ? { userInfo: options.userInfo } : {}),
    namespaceLabels: options.namespaceLabels ?? {},
    variables,
    ...(exceptions.length > 0 ? { exceptions } : {}),
  };
}
