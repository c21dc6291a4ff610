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
  /**
   * Estimated exposition bytes that the series created by reviews may take in all (default 4 MiB,
   * split 60/30/10 between rule results, reviews and HTTP requests). Past it, a new label set is
   * recorded under `_overflow` request labels (a quarter of the budget is kept for those), or
   * dropped when that is full too, and counted in `bylaw_metrics_series_dropped_total`.
   */
  readonly maxSeriesBytes?: number;
  /** Distinct `resource_namespace` values kept (default 200); later namespaces are labelled `_overflow`. */
  readonly maxNamespaces?: number;
  /** Distinct `resource_kind` values kept (default 100); later kinds are labelled `_overflow`. */
  readonly maxKinds?: number;
  /**
   * Whether the server can load context entries of a kind (its engine ports' `canLoad`). A rule with
   * an entry it cannot load answers only errors, so it is reported `status_ready="false"`. Omitted:
   * every kind loads.
   */
  readonly canLoadContext?: (kind: ContextKind) => boolean;
  /** Whether generate rules are run (serve's generate controller, or the background component up), read at each policy load: they count as ready. */
  readonly generateRuns?: () => boolean;
}

/** The context entry kinds that read from outside the request. */
export type ContextKind = "configMap" | "apiCall" | "imageRegistry" | "globalReference";

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
  /** A review answered 503 unevaluated, to shed load (`bylaw_admission_shed_total`). */
  reviewShed(url: string): void;
  /** One HTTP request served (any endpoint); the query string is not part of the label. */
  httpRequest(method: string, url: string, seconds: number): void;
}
