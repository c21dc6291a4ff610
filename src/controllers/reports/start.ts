/**
 * `startReportsController`: background scans and PolicyReports in the `bylaw serve --cluster`
 * process (Kyverno's reports controller). Informers hold the kinds the background policies match
 * (watched-kinds.ts) and the reports Bylaw wrote; a timer ticks, and only the elected leader acts.
 * A resource is scanned when it changed since its last scan (a new resourceVersion), and every
 * resource when the policies changed (once they have settled; a pass under policies that changed
 * meanwhile stops, and the next one starts over with them), when this replica became leader, and every
 * `--background-scan-interval`; a rescan skips a resource whose report was built from what it would be
 * built from now (rescan-skip.ts). Each scan's report is written only when its content changed
 * (reconcile.ts), keeping the rows admission wrote for policies the scan does not evaluate
 * (admission-reports.ts). Reports of resources no policy matches any more are deleted; only reports
 * that carry Bylaw's label ({@link BYLAW_REPORT_LABEL}) are read, and so ever deleted.
 */
import {
  BYLAW_REPORT_LABEL,
  type CompiledPolicy,
  type JsonObject,
  reportKind,
  resourceApiVersion,
  resourceKind,
  scansMutation,
} from "../../engine/index.js";
import { Informer } from "../../kube/informer.js";
import { createReport, deleteReport, readReport, replaceReport, reportGvr } from "../../kube/report-calls.js";
import { scanKinds } from "./policy-kinds.js";
import { reconcileReport, type ReconcileInput, type ReportAction } from "./reconcile.js";
import { compactReport } from "./compact-report.js";
import { admissionOnlyPolicyNames, backgroundPolicies, scanResource } from "./scan.js";
import type { ReportsControllerOptions } from "./types.js";
import { WatchedKinds } from "./watched-kinds.js";
import { BoundedWrites } from "./bounded-writes.js";
import { ScanBatch } from "./scan-batch.js";
import { CONTROLLER_NAMES } from "../reconcile-metrics.js";
import { PolicySettle } from "./policy-settle.js";
import { namespaceKey, recordable, unchangedSince, type ScanBasis } from "./rescan-skip.js";
import { type NamespaceFacts, NO_NAMESPACE } from "../namespace-facts.js";

interface ReportsController {
  close(): void;
}

/** Policies out of date this long are scanned even while they keep changing (policy-settle.ts). */
const MAX_SETTLE_WAIT_MS = 10_000;

/** Resources a pass evaluates back to back before it writes their reports (scan-batch.ts): 32 reports of a few KiB each. */
const SCAN_BATCH = 32;

/** Bylaw's reports only: Kyverno's own, if it runs too, are neither read nor swept. */
const MANAGED = `${BYLAW_REPORT_LABEL.key}=${BYLAW_REPORT_LABEL.value}`;

export function startReportsController(options: ReportsControllerOptions): ReportsController {
  const random = { next: () => Math.random() };
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());
  const format = options.format ?? "wgpolicyk8s";
  const reports = [reportKind(format, false), reportKind(format, true)].map((kind) => {
    const informer = new Informer({
      client: options.client,
      gvr: reportGvr(kind),
      budgetBytes: 256 * 1024 * 1024,
      random,
      sleep,
      labelSelector: MANAGED,
      // Only what a write decision reads: the reports' metadata, with the annotations Bylaw writes (compact-report.ts).
      metadataOnly: true,
      compact: compactReport,
      onLog: (level, message, fields) => options.onLog(level, `reports: ${message}`, fields),
    });
    informer.start();
    return { kind, informer };
  });
  const kinds = new WatchedKinds({ client: options.client, onLog: options.onLog, random, sleep });
  const scanner = new Scanner(options, reports, kinds);
  const timer = setInterval(() => scanner.tick(), options.tickMs ?? 1000);
  timer.unref();
  options.onLog("info", "reports controller started", { intervalSeconds: options.intervalMs / 1000 });
  return {
    close: () => {
      clearInterval(timer);
      kinds.close();
      for (const { informer } of reports) informer.stop();
    },
  };
}

/**
 * What a scan pass did: resources scanned and skipped, and the time their evaluation took on the
 * main thread (synchronous work: its wall time. Not `process.cpuUsage()` around each resource: that
 * call cost 2 % of a first scan's CPU).
 */
interface Tally {
  scanned: number;
  skipped: number;
  evaluationMs: number;
}

type ReportInformers = readonly {
  readonly kind: string;
  readonly informer: Informer;
}[];

class Scanner {
  /** uid → the resourceVersion last scanned. */
  private readonly scanned = new Map<string, string>();
  /** uid → what its report was last built from, when a rescan may skip it (rescan-skip.ts). */
  private readonly bases = new Map<string, ScanBasis>();
  /** uid → the failed report writes since its last good one (the next try is a requeue). */
  private readonly failures = new Map<string, number>();
  private generation = -1;
  /** When a full scan starts after the policies changed (policy-settle.ts). */
  private readonly settle: PolicySettle;
  private lastFull = 0;
  /**
   * The watched kinds' version (watched-kinds.ts) at the start of the last pass that finished with
   * nothing left waiting: until it moves, a pass between full scans has nothing to do and is not run,
   * so an idle controller does not walk every cached object every tick.
   */
  private quietAt = -1;
  /** A resource of this pass was left to a later one (its namespace unknown, its write failed). */
  private pending = false;
  private busy = false;
  private pauseUntil = 0;

  constructor(
    private readonly o: ReportsControllerOptions,
    private readonly reports: ReportInformers,
    private readonly kinds: WatchedKinds,
  ) {
    this.settle = new PolicySettle({ settleMs: o.settleMs ?? 1000, maxWaitMs: MAX_SETTLE_WAIT_MS });
  }

  tick(): void {
    if (this.o.isLeader !== undefined && !this.o.isLeader()) {
      // A replica that leads again scans everything: another may have written meanwhile.
      this.scanned.clear();
      this.bases.clear();
      this.lastFull = 0;
      return;
    }
    if (this.busy || Date.now() < this.pauseUntil) return;
    this.busy = true;
    void this.pass()
      .catch((e: unknown) => {
        this.o.onLog("warn", "reports: scan failed", { error: String(e) });
        this.o.onScanFailed?.();
        this.pauseUntil = Date.now() + 5000;
      })
      .finally(() => (this.busy = false));
  }

  private async pass(): Promise<void> {
    const snapshot = this.o.policies();
    if (snapshot.generation === 0) return;
    const policies = backgroundPolicies(snapshot.policies);
    if (snapshot.generation !== this.generation) {
      if (!this.settle.ready(snapshot.generation, Date.now())) return;
      const { targets, unlisted } = scanKinds(policies);
      for (const u of unlisted)
        this.o.onLog("warn", "reports: a kind that names no resource is not scanned", { kind: u });
      await this.kinds.follow(targets);
      this.generation = snapshot.generation;
      this.scanned.clear();
      this.lastFull = 0;
    }
    if (!this.reports.every((r) => r.informer.health().ok)) return;
    const interruptible = this.settle.interruptible(Date.now());
    const full = Date.now() - this.lastFull >= this.o.intervalMs;
    const version = this.kinds.version;
    if (!full && version === this.quietAt) return;
    if (full) this.scanned.clear();
    this.pending = false;
    // A kind Bylaw may not list (or not yet) waits; the others are scanned meanwhile.
    const seen = new Set<string>();
    const tally: Tally = { scanned: 0, skipped: 0, evaluationMs: 0 };
    const waiting = new Set<string>();
    const watched = new Set<string>();
    const keep = keepAdmissionRows(admissionOnlyPolicyNames(snapshot.policies, policies));
    const writes = new BoundedWrites(this.o.writesInFlight);
    try {
      if (!(await this.visitAll({ snapshot, policies, seen, keep, tally, interruptible, waiting, watched, writes })))
        return;
      await writes.drain();
    } finally {
      await writes.settle();
    }
    if (full) {
      this.lastFull = Date.now();
      for (const uid of this.bases.keys()) if (!seen.has(uid)) this.bases.delete(uid);
      await this.sweep({ seen, waiting, watched, keep });
    }
    this.settle.finished();
    // A kind that could not be read is tried again next tick, as a resource left waiting is.
    this.quietAt = this.pending || waiting.size > 0 ? -1 : version;
    if (tally.scanned + tally.skipped > 0) this.logPass(tally);
  }

  /**
   * Visits every object of every watched kind, writes bounded by `writes`; false when the policies
   * changed meanwhile (the rest would be scanned, and written, under the old ones).
   */
  private async visitAll(at: {
    snapshot: ReturnType<ReportsControllerOptions["policies"]>;
    policies: ReturnType<typeof backgroundPolicies>;
    seen: Set<string>;
    tally: Tally;
    keep: (row: JsonObject) => boolean;
    interruptible: boolean;
    waiting: Set<string>;
    watched: Set<string>;
    writes: BoundedWrites;
  }): Promise<boolean> {
    const { snapshot, seen, waiting, watched } = at;
    const batch = new ScanBatch({ size: SCAN_BATCH, visit: (r: JsonObject) => this.visit(r, at), writes: at.writes });
    for (const { informer, served } of this.kinds.all()) {
      const type = {
        apiVersion: served.group === "" ? served.version : `${served.group}/${served.version}`,
        kind: served.kind,
      };
      if (!informer.health().ok) {
        waiting.add(`${type.apiVersion}/${type.kind}`);
        continue;
      }
      watched.add(`${type.apiVersion}/${type.kind}`);
      for (const object of informer.list()) {
        // Scanned at this resourceVersion already: nothing is copied (every tick passes over every object).
        const { uid, resourceVersion } = (object.metadata ?? {}) as { uid?: string; resourceVersion?: string };
        if (uid !== undefined && this.scanned.get(uid) === resourceVersion) {
          seen.add(uid);
          continue;
        }
        if (at.interruptible && this.o.policies().generation !== snapshot.generation) return false;
        await batch.add({ ...type, ...object });
      }
    }
    await batch.flush();
    return true;
  }

  /**
   * Scans the resource unless it was scanned at this resourceVersion already: its report's write
   * (which records the scan once it is done), or undefined when there is nothing to write.
   */
  private async visit(
    resource: JsonObject,
    at: {
      snapshot: ReturnType<ReportsControllerOptions["policies"]>;
      policies: ReturnType<typeof backgroundPolicies>;
      seen: Set<string>;
      tally: Tally;
      keep: (row: JsonObject) => boolean;
    },
  ): Promise<(() => Promise<void>) | undefined> {
    const meta = resource["metadata"] as { uid?: string; resourceVersion?: string };
    if (meta.uid === undefined) return;
    at.seen.add(meta.uid);
    if (this.scanned.get(meta.uid) === meta.resourceVersion) return;
    const ns = (resource["metadata"] as { namespace?: string }).namespace ?? "";
    const namespace = ns === "" ? NO_NAMESPACE : this.o.namespace(ns);
    // Namespace unknown: the resource waits.
    if (namespace === undefined) {
      this.pending = true;
      return;
    }
    const basis: ScanBasis = {
      resourceVersion: meta.resourceVersion ?? "",
      namespace: namespaceKey(namespace),
      generation: at.snapshot.generation,
      reportVersion: versionOf(this.reportOf(ns, meta.uid).read),
    };
    if (unchangedSince(this.bases.get(meta.uid), basis)) {
      at.tally.skipped++;
      this.scanned.set(meta.uid, basis.resourceVersion);
      this.o.onReconciled?.(CONTROLLER_NAMES.backgroundScan, { result: "done" });
      return;
    }
    this.bases.delete(meta.uid);
    at.tally.scanned++;
    const uid = meta.uid;
    const write = await this.scan(resource, { ...at, namespace });
    return async () => {
      const written = await write();
      if (written === false) {
        this.pending = true;
        return;
      }
      this.scanned.set(uid, basis.resourceVersion);
      if (written.recordable) this.bases.set(uid, { ...basis, reportVersion: written.reportVersion });
    };
  }

  /** A pass's work and where the process's memory is (the caches' JSON bytes, the heap), for the log. */
  private logPass(tally: Tally): void {
    const mib = (bytes: number): number => Math.round(bytes / 104857.6) / 10;
    const memory = process.memoryUsage();
    this.o.onLog("info", "reports: scan pass done", {
      scanned: tally.scanned,
      skipped: tally.skipped,
      evaluationSeconds: Math.round(tally.evaluationMs) / 1000,
      resourceCacheMiB: mib(this.kinds.all().reduce((sum, k) => sum + k.informer.usedBytes, 0)),
      reportCacheMiB: mib(this.reports.reduce((sum, r) => sum + r.informer.usedBytes, 0)),
      heapUsedMiB: mib(memory.heapUsed),
      rssMiB: mib(memory.rss),
    });
  }

  /** With a MutatingPolicy to scan: the resource's group-version typed first (a failure is that policy's error row). */
  private async typed(resource: JsonObject, policies: readonly CompiledPolicy[]): Promise<void> {
    const types = this.o.types;
    if (types === undefined || !policies.some(scansMutation)) return;
    const apiVersion = resourceApiVersion(resource);
    if (!types.ready(apiVersion, resourceKind(resource))) await types.load([apiVersion]);
  }

  /** The resource's report as the reports informer holds it, and the informer's report kind. */
  private reportOf(ns: string, uid: string): { kind: string; read: JsonObject | undefined } {
    const kind = reportKind(this.o.format ?? "wgpolicyk8s", ns === "");
    const informer = this.reports.find((r) => r.kind === kind)?.informer;
    return { kind, read: informer?.get(ns, uid) };
  }

  /**
   * Scans one resource and decides its report (reconcileReport); the write of that decision (`write`).
   */
  private async scan(
    resource: JsonObject,
    at: {
      snapshot: ReturnType<ReportsControllerOptions["policies"]>;
      policies: ReturnType<typeof backgroundPolicies>;
      keep: (row: JsonObject) => boolean;
      namespace: NamespaceFacts;
      tally: Tally;
    },
  ): Promise<() => Promise<false | { reportVersion: string | undefined; recordable: boolean }>> {
    const { snapshot, policies, namespace } = at;
    const meta = resource["metadata"] as { uid: string; namespace?: string; name?: string };
    const ns = meta.namespace ?? "";
    await this.typed(resource, policies);
    const started = performance.now();
    const responses = scanResource({
      engine: this.o.engine,
      policies,
      resource,
      ...namespace,
      ...(snapshot.exceptions !== undefined ? { exceptions: snapshot.exceptions } : {}),
    });
    const evaluationMs = performance.now() - started;
    at.tally.evaluationMs += evaluationMs;
    this.o.onScanned?.(resource, responses, evaluationMs / 1000);
    const report = this.reportOf(ns, meta.uid);
    // A report as the informer lists it has no kind: the informer's says which it is.
    const existing = report.read !== undefined ? { ...report.read, kind: report.kind } : undefined;
    const input: ReconcileInput = {
      resource,
      responses,
      existing,
      nowMillis: Date.now(),
      keep: at.keep,
      format: this.o.format ?? "wgpolicyk8s",
    };
    let first: ReportAction | Error;
    try {
      first = reconcileReport(input);
    } catch (e) {
      first = e instanceof Error ? e : new Error(String(e));
    }
    return () => this.write({ input, first, uid: meta.uid, policies, namespace: ns, name: meta.name });
  }

  /**
   * Writes a scan's report as decided (`first`): the report's resourceVersion after it (undefined
   * when it has none) and whether a rescan may skip the resource while nothing changed; false when
   * the write failed (logged, and counted as a requeue).
   */
  private async write(o: {
    input: ReconcileInput;
    first: ReportAction | Error;
    uid: string;
    policies: readonly CompiledPolicy[];
    namespace: string;
    name: string | undefined;
  }): Promise<false | { reportVersion: string | undefined; recordable: boolean }> {
    // What failed, for the log: reading the report whole (decide), or the write it decided.
    let step = "read";
    try {
      const action = await this.decide(o.input, o.first);
      step = action.action;
      const written = await this.apply(action);
      this.failures.delete(o.uid);
      this.o.onReconciled?.(CONTROLLER_NAMES.backgroundScan, { result: "done" });
      return {
        reportVersion: action.action === "none" ? versionOf(o.input.existing) : written,
        recordable: recordable({ policies: o.policies, responses: o.input.responses, namespace: o.namespace }),
      };
    } catch (e) {
      const requeues = (this.failures.get(o.uid) ?? 0) + 1;
      this.failures.set(o.uid, requeues);
      this.o.onReconciled?.(CONTROLLER_NAMES.backgroundScan, { result: "requeued", requeues });
      this.o.onLog("warn", `reports: failed to ${step} a report`, {
        namespace: o.namespace,
        name: o.name,
        error: (e as Error).message,
      });
      return false;
    }
  }

  /**
   * What to write: reconcileReport's decision (`first`, made already when given), made again on the
   * report read whole when the informer's compacted copy holds rows to keep (its `read`).
   */
  private async decide(
    input: ReconcileInput,
    first: ReportAction | Error = reconcileReport(input),
  ): Promise<ReportAction> {
    if (first instanceof Error) throw first;
    if (first.action !== "read") return first;
    const whole = await readReport(this.o.client, first.report);
    const again = reconcileReport({ ...input, existing: whole });
    if (again.action === "read") throw new Error("a report read whole still has no rows to keep");
    return again;
  }

  /** Writes what reconcileReport decided; the report's resourceVersion after a create or an update. */
  private async apply(action: ReportAction): Promise<string | undefined> {
    if (action.action === "create") return createReport(this.o.client, action.report);
    if (action.action === "update") return replaceReport(this.o.client, action.report);
    if (action.action === "delete") await deleteReport(this.o.client, action.report);
    return undefined;
  }

  /**
   * The reports whose resource was not scanned: of a kind the scan watches, the resource is gone
   * (or no longer matched), so the report is deleted; of a kind it does not watch, only the rows of
   * the policies admission reports are kept (the report is deleted when none is left; the resource's
   * deletion removes it through its owner reference). Not those of a kind whose objects cannot be read now.
   */
  private async sweep(at: {
    seen: ReadonlySet<string>;
    waiting: ReadonlySet<string>;
    watched: ReadonlySet<string>;
    keep: (row: JsonObject) => boolean;
  }): Promise<void> {
    for (const { kind, informer } of this.reports)
      for (const read of informer.list()) {
        const report: JsonObject = { ...(read as JsonObject), kind };
        const meta = report.metadata as { name?: string; namespace?: string };
        const scope = (report["scope"] ?? {}) as { apiVersion?: string; kind?: string };
        const type = `${scope.apiVersion ?? ""}/${scope.kind ?? ""}`;
        if (meta.name === undefined || at.seen.has(meta.name) || at.waiting.has(type)) continue;
        let action: ReportAction = at.watched.has(type) ? { action: "delete", report } : { action: "read", report };
        try {
          if (!at.watched.has(type))
            action = await this.decide({
              resource: scopedResource(report),
              responses: [],
              existing: report,
              nowMillis: Date.now(),
              keep: at.keep,
            });
          await this.apply(action);
        } catch (e) {
          this.o.onLog("warn", `reports: failed to ${action.action} a report`, { name: meta.name, error: String(e) });
        }
      }
  }
}

function versionOf(report: JsonObject | undefined): string | undefined {
  const rv = (report?.["metadata"] as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  return typeof rv === "string" ? rv : undefined;
}

/** A scan keeps the existing rows of the policies only admission reports. */
function keepAdmissionRows(names: ReadonlySet<string>): (row: JsonObject) => boolean {
  return (row) => typeof row["policy"] === "string" && names.has(row["policy"]);
}

/** The resource a report is about, as its scope names it (for a report whose resource is not watched). */
function scopedResource(report: JsonObject): JsonObject {
  const scope = (report["scope"] ?? {}) as Record<string, string | undefined>;
  return {
    apiVersion: scope["apiVersion"] ?? "",
    kind: scope["kind"] ?? "",
    metadata: {
      name: scope["name"] ?? "",
      uid: scope["uid"] ?? "",
      ...(scope["namespace"] !== undefined ? { namespace: scope["namespace"] } : {}),
    },
  };
}
