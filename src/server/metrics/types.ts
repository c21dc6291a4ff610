import type { Registry } from "prom-client";
import type { AdmissionRecorder, PolicySnapshot } from "../types.js";

export interface MetricsOptions {
  /** Where the metrics register; `/metrics` renders this registry. */
  readonly registry: Registry;
  /** Bylaw's version, exposed as `kyverno_info{version}`. */
  readonly version: string;
  /** Histogram buckets in seconds; Kyverno's defaults when omitted. */
  readonly buckets?: readonly number[];
  /** Most series one metric may hold before new label sets are dropped (default 20,000). */
  readonly maxSeriesPerMetric?: number;
}

/** Kyverno's metrics (spec §10) plus Bylaw's policy-set health, fed by the server. */
export interface BylawMetrics extends AdmissionRecorder {
  /**
   * A policy set was loaded: rule info gauges go to 1 for every rule of every policy and to 0 for
   * rules that are gone; created/updated/deleted policies are counted against `previous` (or the
   * last snapshot seen here when `previous` is omitted; on the first load every policy is created).
   */
  policiesLoaded(snapshot: PolicySnapshot, previous?: PolicySnapshot): void;
  /** A reload was rejected; the last good set stays in use. */
  policyLoadFailed(): void;
  /** One HTTP request served (any endpoint); the query string is not part of the label. */
  httpRequest(method: string, url: string, seconds: number): void;
}
