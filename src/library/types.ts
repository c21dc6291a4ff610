/** The library's own public shapes: what a program passes to `createBylaw` and what it gets back. */
import type {
  AnyCompiledException,
  CompiledPolicy,
  GeneratedResource,
  JsonObject,
  JsonValue,
  Operation,
  PolicyExplanation,
  RequestUserInfo,
  Resource,
  RuleResult,
  RuleStatus,
} from "../engine/index.js";
import type { MockedApiCall } from "../platform/offline-context.js";

/** A policy, a PolicyException or a `kind: List` of them: a parsed object, or YAML/JSON text of one or more documents. */
export type PolicyInput = JsonObject | string;

export interface BylawOptions {
  /** ClusterPolicies, Policies and kyverno.io PolicyExceptions (the exceptions are honoured on every check). */
  readonly policies: readonly PolicyInput[];
  /** Answers for `apiCall` context entries, by urlPath (or service url) and method. */
  readonly apiCalls?: readonly MockedApiCall[];
  /** Values of `globalReference` context entries, by entry name. */
  readonly globalContext?: Readonly<Record<string, JsonValue>>;
}

/** How the resource reaches the cluster; everything is optional. */
export interface CheckOptions {
  /** Default CREATE. DELETE checks the resource as the object being deleted. */
  readonly operation?: Operation;
  /** UPDATE: the object before the change (default: the resource itself). */
  readonly oldResource?: Resource;
  /** Who makes the request, for `match.subjects`, `roles`, `clusterRoles` and `request.userInfo`. */
  readonly userInfo?: RequestUserInfo;
  /** Labels of the resource's namespace, for `namespaceSelector` (default: none). */
  readonly namespaceLabels?: Readonly<Record<string, string>>;
  /** Variables set before any rule runs, by dotted name (as a values file's globalValues). */
  readonly variables?: Readonly<Record<string, JsonValue>>;
  /** Objects already in the cluster: clone sources of generate rules, targets of mutate-existing rules. */
  readonly existing?: readonly Resource[];
  /** Also say how each result came about (`ResourceReport.explanations`); costs nothing when unset. */
  readonly explain?: boolean;
}

/** One rule's result for one resource, with the policy it belongs to. */
export interface PolicyRuleResult extends RuleResult {
  /** The policy's name; `namespace/name` for a namespaced Policy. */
  readonly policy: string;
  /** A failed Validation or ImageVerify rule: the action that applies (Enforce denies at admission). */
  readonly action?: "Audit" | "Enforce";
}

export interface ResourceReport {
  /** The resource as given. */
  readonly resource: Resource;
  /** The resource after every mutate policy, in order (the given object when nothing changed). */
  readonly patched: Resource;
  /** Every rule that matched: mutate policies first, then validate (on the patched resource), then generate. */
  readonly results: readonly PolicyRuleResult[];
  /** What the generate rules would create. */
  readonly generated: readonly GeneratedResource[];
  /** How many results have each status. */
  readonly summary: Readonly<Record<RuleStatus, number>>;
  /** A rule failed under Enforce: the admission webhook would deny the resource. */
  readonly blocked: boolean;
  /**
   * Set when the resource could not be checked at all (not a Kubernetes object: null, a list, no
   * kind): no policy ran, `summary.error` is 1, and this says what to give instead. Never a pass.
   */
  readonly error?: string;
  /**
   * With `explain: true`: per policy that matched, each rule with the clause that matched or
   * excluded it, exceptions, context values, preconditions, and what failed where.
   */
  readonly explanations?: readonly PolicyExplanation[];
}

export interface Bylaw {
  readonly policies: readonly CompiledPolicy[];
  /** PolicyExceptions found among the policies: kyverno.io/v2 and policies.kyverno.io (CEL kinds). */
  readonly exceptions: readonly AnyCompiledException[];
  /** Things to know that do not stop the policies from running (deprecated fields, kinds Bylaw answers only with errors). */
  readonly warnings: readonly string[];
  /** Run every policy against one resource. */
  check(resource: Resource, options?: CheckOptions): ResourceReport;
}

/** Invalid input is an answer, not an exception: each error names the input, the document and the field. */
export type BylawOutcome =
  | { readonly ok: true; readonly bylaw: Bylaw }
  | { readonly ok: false; readonly errors: readonly string[]; readonly warnings: readonly string[] };
