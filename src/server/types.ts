/**
 * The seams of `bylaw serve`: what the admission handlers read (the current policy set, cluster
 * facts the request does not carry) and what they report to (metrics, logs). Each piece is passed
 * in; nothing here is global.
 */
import type { CompiledException } from "../engine/exceptions/index.js";
import type { AdmissionPlans } from "./admission/plans.js";
import type { Operation, RequestUserInfo } from "../engine/api/resource.js";
import type { Engine } from "../engine/engine.js";
import type { CompiledPolicy } from "../engine/policy/compiled-policy.js";
import type { PolicyProblem } from "../engine/policy/problem.js";

/** One immutable, loaded set of policies; a reload swaps the whole snapshot at once. */
export interface PolicySnapshot {
  readonly policies: readonly CompiledPolicy[];
  /** PolicyExceptions (kyverno.io/v2, v2beta1) loaded with the policies; absent when there are none. */
  readonly exceptions?: readonly CompiledException[];
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
  namespaceLabels(namespace: string): Readonly<Record<string, string>>;
  /** `namespace:name` Role bindings and ClusterRole names bound to the user. */
  roles(user: Pick<RequestUserInfo, "username" | "groups">): { readonly roles: readonly string[]; readonly clusterRoles: readonly string[] };
}

/** What one admission review decided, for metrics and logs. */
export interface AdmissionOutcome {
  readonly uid: string;
  readonly webhook: "mutate" | "validate" | "policyvalidate";
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly operation: Operation | string;
  readonly allowed: boolean;
  readonly dryRun: boolean;
  readonly durationSeconds: number;
  readonly patchOps?: number;
  readonly warnings: number;
}

/** One rule result, for `kyverno_policy_results_total` / `kyverno_policy_execution_duration_seconds`. */
export interface PolicyResultEvent {
  readonly policy: CompiledPolicy;
  readonly rule: string;
  readonly ruleType: "validate" | "mutate" | "generate";
  readonly result: "pass" | "fail" | "warn" | "error" | "skip";
  readonly validationMode: "enforce" | "audit";
  readonly resourceKind: string;
  readonly resourceNamespace: string;
  readonly operation: string;
  readonly dryRun: boolean;
  readonly durationSeconds: number;
}

/** The handlers report here; the metrics module implements it with prom-client. */
export interface AdmissionRecorder {
  admission(outcome: AdmissionOutcome): void;
  policyResult(event: PolicyResultEvent): void;
}

/** Everything a pure admission handler needs. */
export interface AdmissionDeps {
  readonly engine: Engine;
  readonly policies: () => PolicySnapshot;
  readonly cluster: ClusterFacts;
  readonly recorder: AdmissionRecorder;
  /** Monotonic clock in seconds (performance.now()/1000 in production; a fake in tests). */
  readonly now: () => number;
  /** Seconds a review may take before the handler answers per failurePolicy (below the webhook timeout). */
  readonly deadlineSeconds: number;
  /** Kyverno's `--exceptionNamespace`: when set, only PolicyExceptions in these namespaces are honoured. */
  readonly exceptionNamespaces?: readonly string[];
  /** Per-snapshot plans of which policies each webhook evaluates; without it they are worked out per review. */
  readonly plans?: AdmissionPlans;
}
