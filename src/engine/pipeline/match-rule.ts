/** One rule's match/exclude against the resource a request carries (user info is ignored in background scans). */
import { parseApiVersion, resourceApiVersion, resourceKind, type Operation, type Resource } from "../api/resource.js";
import type { MatchRequest } from "../match/index.js";
import type { CompiledPolicy, CompiledRule } from "../policy/compiled-policy.js";
import type { EngineRequest } from "./types.js";

/** What every rule of one policy is matched against; build it once per policy and subject. */
export function matchRequestFor(policy: CompiledPolicy, subject: Resource, operation: Operation, request: EngineRequest): MatchRequest {
  const gv = parseApiVersion(resourceApiVersion(subject));
  const gvk = { group: gv.group, version: gv.version, kind: resourceKind(subject) };
  const subresource = request.subresource ?? "";
  const userInfo = request.background === true ? undefined : request.userInfo;
  // Two literals rather than a conditional spread, which V8 builds on a slow path.
  return userInfo === undefined
    ? { resource: subject, operation, gvk, subresource, namespaceLabels: request.namespaceLabels, policyNamespace: policy.namespace }
    : { resource: subject, operation, gvk, subresource, userInfo, namespaceLabels: request.namespaceLabels, policyNamespace: policy.namespace };
}

export function ruleMatches(compiled: CompiledRule, req: MatchRequest): boolean {
  return compiled.matcher.matches(req);
}
