/** What the cleanup controller's loops are given: the API server's client, the engine, counters, a log. */
import type { AnyCompiledException, CompileOutcome, EngineEnv, JsonValue } from "../../engine/index.js";
import type { KubeClient } from "../../kube/kube-client.js";
import type { Discovery } from "../../kube/discovery.js";
import type { OnReconciled } from "../reconcile-metrics.js";

export type Log = (level: "info" | "warn" | "error", message: string, fields: Record<string, unknown>) => void;

/** kyverno_cleanup_controller_{deletedobjects,errors}_total's labels. */
export interface CleanupMetricLabels {
  readonly policy_name: string;
  readonly policy_namespace: string;
  readonly policy_type: string;
  readonly resource_kind: string;
  readonly resource_namespace: string;
  readonly deletion_propagation: string;
}

/**
 * kyverno_deleting_controller_{deletedobjects,errors}_total's labels (a DeletingPolicy's deletions):
 * the cleanup set with `resource` (the plural) where it has `resource_kind`.
 */
type DeletingMetricLabels = Omit<CleanupMetricLabels, "resource_kind"> & { readonly resource: string };

/** kyverno_ttl_controller_{deletedobjects,errors}_total's labels. */
interface TtlMetricLabels {
  readonly resource_group: string;
  readonly resource_version: string;
  readonly resource_resource: string;
  readonly resource_namespace: string;
}

/** The counters (src/server/metrics/cleanup-counters.ts implements them on /metrics). */
export interface CleanupCounters {
  deleted(labels: CleanupMetricLabels): void;
  failed(labels: CleanupMetricLabels): void;
  deletingDeleted(labels: DeletingMetricLabels): void;
  deletingFailed(labels: DeletingMetricLabels): void;
  ttlDeleted(labels: TtlMetricLabels): void;
  ttlFailed(labels: TtlMetricLabels): void;
}

export interface LoopDeps {
  readonly client: KubeClient;
  readonly env: EngineEnv;
  /** The engine's compile (a DeletingPolicy compiles as everywhere else). */
  readonly compile: (doc: JsonValue) => CompileOutcome;
  readonly counters: CleanupCounters;
  /** The policies.kyverno.io PolicyExceptions in force now (the policy source's, within --exception-namespace). */
  readonly exceptions?: () => readonly AnyCompiledException[];
  /** Each policy run, as cleanup-controller's reconcile on /metrics. */
  readonly onReconciled?: OnReconciled;
  readonly onLog: Log;
  /** This replica's name, in the Events' reportingInstance. */
  readonly instance: string;
  readonly now: () => number;
  /** The API server's resources (cached by the caller). */
  readonly discovery: () => Promise<Discovery>;
}
