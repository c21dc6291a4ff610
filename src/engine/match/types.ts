/** Shapes used by match/exclude evaluation. */
import type { GroupVersionKind, Operation, RequestUserInfo, Resource } from "../api/resource.js";

/** Everything needed to decide whether a rule's match/exclude selects a resource. */
export interface MatchRequest {
  /** The object being matched. For DELETE the caller passes the old object here. */
  readonly resource: Resource;
  readonly operation: Operation;
  /** Group/version/kind of the resource (the caller derives it from apiVersion/kind). */
  readonly gvk: GroupVersionKind;
  /** The subresource of the request, "" when none. */
  readonly subresource: string;
  /**
   * Who made the request. Absent (or all fields empty) in background scans: user-info criteria in
   * `match` are then ignored, as Kyverno does.
   */
  readonly userInfo?: RequestUserInfo;
  /** Labels of the resource's namespace (from values files or the cluster). */
  readonly namespaceLabels: Readonly<Record<string, string>>;
  /** "" for a ClusterPolicy; a namespaced Policy applies only to resources in its own namespace. */
  readonly policyNamespace: string;
}

/** A kind selector from `kinds[]`, split into its four parts (each may hold wildcards). */
export interface KindSelector {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly subresource: string;
}

/** What one check sees: the request plus the user, already resolved for background mode. */
export interface CheckContext {
  readonly req: MatchRequest;
  readonly user: RequestUserInfo;
}

/** One small check of a filter: whether the request meets one written criterion. */
export type Check = (ctx: CheckContext) => boolean;

/** A check with the field it was written under (`kinds`, `selector`, `subjects`, …), for explanations. */
export interface NamedCheck {
  readonly field: string;
  readonly holds: Check;
}

/** A rule's match/exclude compiled once, evaluated many times. */
export interface CompiledMatch {
  /** Whether the rule applies to the request: its match selects it and its exclude does not. */
  matches(req: MatchRequest): boolean;
  /**
   * The only kinds the rule can match, when its match names literal kinds (no wildcard): a request
   * of any other kind is not matched. undefined: any kind may match.
   */
  readonly kinds: readonly string[] | undefined;
  /**
   * The only operations the rule can match, when its match names them in every filter that decides
   * it: a request of another operation is not matched. undefined (or absent): any operation may match.
   */
  readonly operations?: readonly string[] | undefined;
  /** What the match requires of any request it selects, by the request's own facts (the candidate index). */
  readonly gate?: MatchGate;
  /** Why `matches` decides as it does: the clause that decided (built only when asked, engine/explain). */
  explain(req: MatchRequest): MatchDecision;
}

/**
 * Conditions a request must meet for a rule's match to select it, each written in every filter that
 * decides the match (match.any: each filter, the lists joined; match.all: one filter). A request
 * failing one is not matched, whatever else the rule says; an absent field asks nothing.
 */
export interface MatchGate {
  /** `kinds` as written: the request's group/version/kind and subresource. */
  readonly kinds?: (gvk: GroupVersionKind, subresource: string) => boolean;
  /** `namespaces` patterns, against a Namespace's own name or the object's namespace. */
  readonly namespaces?: readonly string[];
  /** `names` (or `name`) patterns, against the name or, with none yet, the generateName. */
  readonly names?: readonly string[];
  /**
   * Label keys a `selector` requires (a literal `matchLabels` key; an `In` or `Exists` expression's
   * key), as alternatives: the subject's labels hold every key of at least one of them.
   */
  readonly labelKeys?: readonly (readonly string[])[];
}

/** A match/exclude decision with the clause that decided it, e.g. `match.any[1] selected it`. */
export interface MatchDecision {
  readonly matched: boolean;
  readonly reason: string;
  /**
   * Set when the rule cannot concern the request at all: its match names other kinds (or a CEL
   * policy's constraints leave the request out). Explanations list such policies only on request.
   */
  readonly elsewhere?: true;
}
