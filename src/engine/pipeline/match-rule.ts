/** One rule's match/exclude against the resource a request carries (user info is ignored in background scans). */
import { parseApiVersion, resourceApiVersion, resourceKind, type Operation, type Resource } from "../api/resource.js";
import type { CompiledPolicy, CompiledRule } from "../policy/compiled-policy.js";
import type { EngineRequest } from "./types.js";

export function matchRule(policy: CompiledPolicy, compiled: CompiledRule, subject: Resource, operation: Operation, request: EngineRequest): { readonly matched: boolean } {
  const gv = parseApiVersion(resourceApiVersion(subject));
  return compiled.matcher.match({
    resource: subject,
    operation,
    gvk: { group: gv.group, version: gv.version, kind: resourceKind(subject) },
    subresource: request.subresource ?? "",
    ...(request.userInfo !== undefined && !request.background ? { userInfo: request.userInfo } : {}),
    namespaceLabels: request.namespaceLabels,
    policyNamespace: policy.namespace,
  });
}
