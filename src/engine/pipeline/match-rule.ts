/** One rule's match/exclude against the resource a request carries (user info is ignored in background scans). */
import {
  parseApiVersion,
  resourceApiVersion,
  resourceKind,
  type GroupVersionKind,
  type Resource,
} from "../api/resource.js";
import type { CompiledMatch, MatchRequest } from "../match/index.js";
import type { CompiledPolicy, CompiledRule } from "../policy/compiled-policy.js";
import type { PreparedRequest } from "./prepared-request.js";

/** What every rule of one policy is matched against; build it once per policy and subject (mutate: the resource patched so far). */
export function matchRequestFor(policy: CompiledPolicy, subject: Resource, prepared: PreparedRequest): MatchRequest {
  const request = prepared.request;
  const operation = prepared.operation;
  const gvk = matchedKind(prepared, subject);
  const subresource = request.subresource ?? "";
  const userInfo = request.background === true ? undefined : request.userInfo;
  // Two literals rather than a conditional spread, which V8 builds on a slow path.
  return userInfo === undefined
    ? {
        resource: subject,
        operation,
        gvk,
        subresource,
        namespaceLabels: request.namespaceLabels,
        policyNamespace: policy.namespace,
      }
    : {
        resource: subject,
        operation,
        gvk,
        subresource,
        userInfo,
        namespaceLabels: request.namespaceLabels,
        policyNamespace: policy.namespace,
      };
}

/** The group/version/kind rules match a request's subject as: the request's matchKind, else the subject's own. */
export function matchedKind(prepared: PreparedRequest, subject: Resource = prepared.subject): GroupVersionKind {
  return prepared.request.matchKind ?? ownKind(subject);
}

function ownKind(subject: Resource): GroupVersionKind {
  const gv = parseApiVersion(resourceApiVersion(subject));
  return { group: gv.group, version: gv.version, kind: resourceKind(subject) };
}

export function ruleMatches(compiled: CompiledRule, req: MatchRequest): boolean {
  return compiled.matcher.matches(req);
}

/** One match request and the decisions of the matchers already asked about it. */
export interface MatchContext {
  readonly req: MatchRequest;
  /** Matchers are shared by rules written alike (match/shared-match.ts): each decides once. */
  readonly decided: Map<CompiledMatch, boolean>;
}

export function matchContext(req: MatchRequest): MatchContext {
  return { req, decided: new Map<CompiledMatch, boolean>() };
}

/**
 * `ruleMatches`, deciding each matcher once per match request (a decision depends on the request
 * alone). A rule whose kinds rule the request out is answered first, without the memo.
 */
export function ruleMatchesOnce(compiled: CompiledRule, ctx: MatchContext): boolean {
  return matchesOnce(compiled.matcher, ctx);
}

/** Whether `matcher` selects the context's request, decided once per match request (`ruleMatchesOnce`). */
export function matchesOnce(matcher: CompiledMatch, ctx: MatchContext): boolean {
  if (matcher.kinds !== undefined && !matcher.kinds.includes(ctx.req.gvk.kind)) return false;
  let decision = ctx.decided.get(matcher);
  if (decision === undefined) {
    decision = matcher.matches(ctx.req);
    ctx.decided.set(matcher, decision);
  }
  return decision;
}
