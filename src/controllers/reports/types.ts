/** What the reports controller is given: the API server's client, the engine, the policies, namespace labels, a log. */
import type {
  AnyCompiledException,
  CompiledPolicy,
  Engine,
  JsonObject,
  PolicyResponse,
  ReportFormat,
} from "../../engine/index.js";
import type { KubeClient } from "../../kube/kube-client.js";
import type { ClusterTypedKinds } from "../../kube/openapi-typed-kinds.js";
import type { OnReconciled } from "../reconcile-metrics.js";
import type { NamespaceFacts } from "../namespace-facts.js";

export type Log = (level: "info" | "warn" | "error", message: string, fields: Record<string, unknown>) => void;

/** The policies in force, bumped `generation` on every load. */
interface ScanPolicies {
  readonly policies: readonly CompiledPolicy[];
  readonly exceptions?: readonly AnyCompiledException[];
  readonly generation: number;
}

export interface ReportsControllerOptions {
  readonly client: KubeClient;
  readonly engine: Pick<Engine, "validate" | "mutate" | "prepare">;
  /**
   * The cluster's kinds a MutatingPolicy's ApplyConfiguration is typed with (the engine's typedKinds
   * reads them): a resource is scanned with such a policy once its group-version is read.
   */
  readonly types?: Pick<ClusterTypedKinds, "ready" | "load">;
  readonly policies: () => ScanPolicies;
  /** A namespace's labels and object (CEL's `namespaceObject`); undefined while unknown (its resources wait). */
  readonly namespace: (namespace: string) => NamespaceFacts | undefined;
  readonly onLog: Log;
  /** A scan pass failed (counted on /metrics as bylaw_background_scan_failures_total; the alert reads it). */
  readonly onScanFailed?: () => void;
  /** A resource scanned: its policies' responses (kyverno_policy_results_total, rule_execution_cause background_scan). */
  readonly onScanned?: (resource: JsonObject, responses: readonly PolicyResponse[], seconds: number) => void;
  /** Each resource's scan and report write, as background-scan-controller's reconcile (or requeue) on /metrics. */
  readonly onReconciled?: OnReconciled;
  /** `--background-scan-interval`: every resource is scanned again this often. */
  readonly intervalMs: number;
  /** With leader election, only the leader scans and writes; default: this replica. */
  readonly isLeader?: () => boolean;
  readonly tickMs?: number;
  /** `--background-scan-workers`: report writes in flight at most during a scan pass (bounded-writes.ts). */
  readonly writesInFlight: number;
  /**
   * A changed policy set is scanned once it has not changed for this long (default 1 s): a folder
   * applied with kubectl arrives as one load per policy, and each would otherwise start a full scan.
   */
  readonly settleMs?: number;
  /** `--openreports-enabled`: openreports.io Reports instead of wgpolicyk8s.io PolicyReports. */
  readonly format?: ReportFormat;
}
