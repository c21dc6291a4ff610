/**
 * The seams of `bylaw serve`: what the admission handlers read (the current policy set, cluster
 * facts the request does not carry) and what they report to (metrics, logs). Each piece is passed
 * in; nothing here is global.
 */
import type {
  AnyCompiledException,
  CompiledPolicy,
  JsonObject,
  PolicyProblem,
  PolicyResponse,
  RequestUserInfo,
} from "../engine/index.js";

/** One immutable, loaded set of policies; a reload swaps the whole snapshot at once. */
export interface PolicySnapshot {
  readonly policies: readonly CompiledPolicy[];
  /** PolicyExceptions (kyverno.io/v2, v2beta1, and policies.kyverno.io for the CEL kinds) loaded with the policies; absent when there are none. */
  readonly exceptions?: readonly AnyCompiledException[];
  /** Monotonic generation number, bumped on every successful load. */
  readonly generation: number;
  /** When this snapshot was loaded (ms since epoch). */
  readonly loadedAt: number;
}

/** Where the current policies come from: a watched directory now, a cluster watch later. */
export interface PolicySource {
  current(): PolicySnapshot;
  /** The last load problem, while the last good snapshot stays in use; undefined when healthy. */
  lastError(): PolicyLoadError | undefined;
  /** Called after every load attempt, good or bad. Returns an unsubscribe function. */
  onChange(listener: (event: PolicySourceEvent) => void): () => void;
  close(): Promise<void>;
}

export interface PolicyLoadError {
  readonly at: number;
  readonly message: string;
  readonly problems: readonly { readonly file: string; readonly problem: PolicyProblem | string }[];
}

export type PolicySourceEvent =
  | { readonly kind: "loaded"; readonly snapshot: PolicySnapshot; readonly previous?: PolicySnapshot }
  | { readonly kind: "rejected"; readonly error: PolicyLoadError };

/** Cluster facts an AdmissionReview does not carry: namespace labels and the user's RBAC roles. */
export interface ClusterFacts {
  /** The namespace's labels; undefined when the facts do not know the namespace (its labels are unknown). */
  namespaceLabels(namespace: string): Readonly<Record<string, string>> | undefined;
  /**
   * `namespace:name` Role bindings and ClusterRole names bound to the user. May throw while the
   * facts cannot be known yet (a watch still on its first list); an Error named "NotReady" is then
   * answered as "not ready", under the webhook's failurePolicy, rather than as a Bylaw bug.
   */
  roles(user: Pick<RequestUserInfo, "username" | "groups">): {
    readonly roles: readonly string[];
    readonly clusterRoles: readonly string[];
  };
  /**
   * Whether any of these policies reads the user's roles (absent: assume so). A review whose
   * policies read none is built without asking `roles`, so facts still loading for another
   * policy never hold it up.
   */
  needsRoles?(policies: readonly CompiledPolicy[]): boolean;
  /**
   * The Namespace object itself (annotations, spec and status too), for CEL's `namespaceObject`, as
   * Kyverno's webhook reads it from its Namespace cache; absent, or undefined for a namespace the
   * facts do not hold, and the engine builds one from the name and labels.
   */
  namespaceObject?(namespace: string): JsonObject | undefined;
}

/** What one admission review decided, for metrics and logs. */
export interface AdmissionOutcome {
  readonly uid: string;
  readonly webhook: "mutate" | "validate" | "policyvalidate";
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The operation (CREATE, UPDATE, ...) as the API server sent it; not checked, so any string. */
  readonly operation: string;
  readonly allowed: boolean;
  readonly dryRun: boolean;
  readonly durationSeconds: number;
  readonly patchOps?: number;
  readonly warnings: number;
}

/** What the rule results of one review are labelled with (`resource_kind`, `resource_namespace`, …); one object per review. */
export interface ReviewFacts {
  readonly kind: string;
  readonly namespace: string;
  readonly operation: string;
  readonly dryRun: boolean;
  /** `rule_execution_cause`: a background scan's results say so; default `admission_request`. */
  readonly cause?: "background_scan";
}

/** The rule type label of a result. */
export type ResultRuleType = "validate" | "mutate" | "generate";

/** The handlers report here; the metrics module implements it with prom-client. */
export interface AdmissionRecorder {
  /** `results`: the policies' rule results the decision was made from (the per-review log line names them). */
  admission(outcome: AdmissionOutcome, results?: readonly PolicyResponse[]): void;
  /**
   * One policy's rule results for one review (`kyverno_policy_results_total`,
   * `kyverno_policy_execution_duration_seconds`), each taking `secondsEach` of the policy's time.
   * Called once per policy and review, with the engine's response as it is: no event is made per rule.
   */
  policyResults(review: ReviewFacts, response: PolicyResponse, ruleType: ResultRuleType, secondsEach: number): void;
}
