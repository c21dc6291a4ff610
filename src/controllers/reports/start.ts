/**
 * `startReportsController`: background scans and PolicyReports in the `bylaw serve --cluster`
 * process (Kyverno's reports controller). Informers hold the kinds the background policies match
 * (watched-kinds.ts) and the reports Bylaw wrote; a timer ticks, and only the elected leader acts.
 * A resource is scanned when it changed since its last scan (a new resourceVersion), and every
 * resource when the policies changed, when this replica became leader, and every
 * `--background-scan-interval`. Each scan's report is written only when its content changed
 * (reconcile.ts); reports of resources no background policy matches any more are deleted.
 */
import type { JsonObject } from "../../engine/index.js";
import { Informer } from "../../kube/informer.js";
import { createReport, deleteReport, REPORT_GVRS, replaceReport } from "../../kube/report-calls.js";
import { scanKinds } from "./policy-kinds.js";
import { reconcileReport } from "./reconcile.js";
import { backgroundPolicies, scanResource } from "./scan.js";
import type { ReportsControllerOptions } from "./types.js";
import { WatchedKinds } from "./watched-kinds.js";

interface ReportsController {
  close(): void;
}

const MANAGED = "app.kubernetes.io/managed-by=kyverno";

export function startReportsController(options: ReportsControllerOptions): ReportsController {
  const random = { next: () => Math.random() };
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());
  const reports = (["PolicyReport", "ClusterPolicyReport"] as const).map((kind) => {
    const informer = new Informer({
      client: options.client,
      gvr: REPORT_GVRS[kind],
      budgetBytes: 256 * 1024 * 1024,
      random,
      sleep,
      labelSelector: MANAGED,
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

type ReportInformers = readonly {
  readonly kind: "PolicyReport" | "ClusterPolicyReport";
  readonly informer: Informer;
}[];

class Scanner {
  /** uid → the resourceVersion last scanned. */
  private readonly scanned = new Map<string, string>();
  private generation = -1;
  private lastFull = 0;
  private busy = false;
  private pauseUntil = 0;

  constructor(
    private readonly o: ReportsControllerOptions,
    private readonly reports: ReportInformers,
    private readonly kinds: WatchedKinds,
  ) {}

  tick(): void {
    if (this.o.isLeader !== undefined && !this.o.isLeader()) {
      // A replica that leads again scans everything: another may have written meanwhile.
      this.scanned.clear();
      this.lastFull = 0;
      return;
    }
    if (this.busy || Date.now() < this.pauseUntil) return;
    this.busy = true;
    void this.pass()
      .catch((e: unknown) => {
        this.o.onLog("warn", "reports: scan failed", { error: String(e) });
        this.pauseUntil = Date.now() + 5000;
      })
      .finally(() => (this.busy = false));
  }

  private async pass(): Promise<void> {
    const snapshot = this.o.policies();
    if (snapshot.generation === 0) return;
    const policies = backgroundPolicies(snapshot.policies);
    if (snapshot.generation !== this.generation) {
      const { kinds, unlisted } = scanKinds(policies);
      for (const u of unlisted)
        this.o.onLog("warn", "reports: a kind that names no resource is not scanned", { kind: u });
      await this.kinds.follow(kinds);
      this.generation = snapshot.generation;
      this.scanned.clear();
      this.lastFull = 0;
    }
    if (!this.reports.every((r) => r.informer.health().ok)) return;
    const full = Date.now() - this.lastFull >= this.o.intervalMs;
    if (full) this.scanned.clear();
    // A kind Bylaw may not list (or not yet) waits; the others are scanned meanwhile.
    const seen = new Set<string>();
    const waiting = new Set<string>();
    for (const { informer, served } of this.kinds.all()) {
      const type = {
        apiVersion: served.group === "" ? served.version : `${served.group}/${served.version}`,
        kind: served.kind,
      };
      if (!informer.health().ok) {
        waiting.add(`${type.apiVersion}/${type.kind}`);
        continue;
      }
      for (const object of informer.list()) await this.visit({ ...type, ...object }, { snapshot, policies, seen });
    }
    if (full) {
      this.lastFull = Date.now();
      await this.deleteOrphans(seen, waiting);
    }
  }

  /** Scans the resource unless it was scanned at this resourceVersion already. */
  private async visit(
    resource: JsonObject,
    at: {
      snapshot: ReturnType<ReportsControllerOptions["policies"]>;
      policies: ReturnType<typeof backgroundPolicies>;
      seen: Set<string>;
    },
  ): Promise<void> {
    const meta = resource["metadata"] as { uid?: string; resourceVersion?: string };
    if (meta.uid === undefined) return;
    at.seen.add(meta.uid);
    if (this.scanned.get(meta.uid) === meta.resourceVersion) return;
    if (await this.scan(resource, at.snapshot, at.policies)) this.scanned.set(meta.uid, meta.resourceVersion ?? "");
  }

  /** Scans one resource and writes its report; false when it must wait (namespace labels unknown) or the write failed. */
  private async scan(
    resource: JsonObject,
    snapshot: ReturnType<ReportsControllerOptions["policies"]>,
    policies: ReturnType<typeof backgroundPolicies>,
  ): Promise<boolean> {
    const meta = resource["metadata"] as { uid: string; namespace?: string; name?: string };
    const ns = meta.namespace ?? "";
    const labels = ns === "" ? {} : this.o.namespaceLabels(ns);
    if (labels === undefined) return false;
    const responses = scanResource({
      engine: this.o.engine,
      policies,
      resource,
      namespaceLabels: labels,
      ...(snapshot.exceptions !== undefined ? { exceptions: snapshot.exceptions } : {}),
    });
    const informer = this.reports.find(
      (r) => r.kind === (ns === "" ? "ClusterPolicyReport" : "PolicyReport"),
    )?.informer;
    const read = informer?.get(ns, meta.uid);
    const existing = read !== undefined ? withKind(read, ns) : undefined;
    const action = reconcileReport({ resource, responses, existing, nowMillis: Date.now() });
    try {
      if (action.action === "create") await createReport(this.o.client, action.report);
      else if (action.action === "update") await replaceReport(this.o.client, action.report);
      else if (action.action === "delete") await deleteReport(this.o.client, action.report);
      return true;
    } catch (e) {
      this.o.onLog("warn", `reports: failed to ${action.action} a report`, {
        namespace: ns,
        name: meta.name,
        error: (e as Error).message,
      });
      return false;
    }
  }

  /**
   * Deletes the reports whose resource is no longer scanned (gone, or matched by no background
   * policy); not those of a kind whose objects cannot be read now.
   */
  private async deleteOrphans(seen: ReadonlySet<string>, waiting: ReadonlySet<string>): Promise<void> {
    for (const { kind, informer } of this.reports)
      for (const report of informer.list()) {
        const meta = report.metadata as { name?: string; namespace?: string };
        const scope = (report["scope"] ?? {}) as { apiVersion?: string; kind?: string };
        if (meta.name === undefined || seen.has(meta.name)) continue;
        if (waiting.has(`${scope.apiVersion ?? ""}/${scope.kind ?? ""}`)) continue;
        await deleteReport(this.o.client, { ...report, kind }).catch((e: unknown) =>
          this.o.onLog("warn", "reports: failed to delete a report", { name: meta.name, error: String(e) }),
        );
      }
  }
}

/** A report as the informer lists it has no kind: the namespace says which it is. */
function withKind(report: JsonObject, ns: string): JsonObject {
  return { ...report, kind: ns === "" ? "ClusterPolicyReport" : "PolicyReport" };
}
