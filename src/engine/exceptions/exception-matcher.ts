/**
 * `spec.match` of an exception (Kyverno `checkMatchesResources`): `any` selects when one filter
 * does, `all` when every filter does, and a match with neither selects nothing. Unlike a rule's
 * match, user information is always checked (in a background scan there is none, so a filter
 * naming roles or subjects cannot select) and the policy's namespace plays no part.
 */
import type { MatchResources } from "../api/policy.js";
import { parseApiVersion, resourceApiVersion, resourceKind, type RequestUserInfo } from "../api/resource.js";
import { compileFilter, type CompiledFilter } from "../match/resource-filter.js";
import type { CheckContext } from "../match/types.js";
import type { ExceptionMatchInput, ExceptionMatcher } from "./types.js";

const EMPTY_USER: RequestUserInfo = { username: "", groups: [], roles: [], clusterRoles: [] };

export function compileExceptionMatch(match: MatchResources): ExceptionMatcher {
  const any = (match.any ?? []).map(compileFilter);
  const all = (match.all ?? []).map(compileFilter);
  // background = false: user information is always checked.
  const selects = (f: CompiledFilter, ctx: CheckContext): boolean => f.selects(ctx, false);
  return {
    matches(input: ExceptionMatchInput): boolean {
      if (any.length === 0 && all.length === 0) return false;
      const ctx = contextOf(input);
      if (any.length > 0) return any.some((f) => selects(f, ctx));
      return all.every((f) => selects(f, ctx));
    },
  };
}

function contextOf(input: ExceptionMatchInput): CheckContext {
  const gv = parseApiVersion(resourceApiVersion(input.resource));
  const gvk = input.matchKind ?? { group: gv.group, version: gv.version, kind: resourceKind(input.resource) };
  return {
    req: {
      resource: input.resource,
      operation: input.operation,
      gvk,
      subresource: input.subresource ?? "",
      ...(input.userInfo !== undefined ? { userInfo: input.userInfo } : {}),
      namespaceLabels: input.namespaceLabels,
      policyNamespace: "",
    },
    user: input.userInfo ?? EMPTY_USER,
  };
}
