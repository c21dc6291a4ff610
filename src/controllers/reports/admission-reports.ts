/**
 * Admission results in the per-resource reports (issue 35 §4, ADR 0018 "Admission results"): the
 * process that answers the webhooks merges the rows of an allowed request into the resource's
 * PolicyReport itself, read and written with optimistic concurrency (the resourceVersion read; a
 * 409 is read again and merged again), so it needs no reports process beside it and writes no
 * intermediate report objects.
 *
 * Bounded by design: results wait here per resource (by uid) for `delayMs`, and a newer request for
 * the same resource replaces the older one's rows policy by policy, so a flood of admissions of one
 * object is one write per `delayMs` at most; at most `maxPending` resources wait, past that a new
 * resource's results are dropped and counted (logged once per burst). The wait also lets a created
 * object be stored before its report, which it owns, is written. One write at a time.
 */
import { reportKind, type JsonObject, type PolicyResponse, type ReportFormat } from "../../engine/index.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { createReport, readReport, replaceReport } from "../../kube/report-calls.js";
import { reconcileReport } from "./reconcile.js";
import { reported, rowPolicyName } from "./scan.js";
import type { Log } from "./types.js";

interface AdmissionReportsOptions {
  readonly client: Pick<KubeClient, "getJson" | "sendJson">;
  readonly onLog: Log;
  /** Resources whose results may wait at once (default 5000). */
  readonly maxPending?: number;
  /** How long results wait before they are written (default 2000 ms). */
  readonly delayMs?: number;
  readonly now?: () => number;
  /** Whether to write from a timer (default true; tests call `flush`). */
  readonly timer?: boolean;
  /** Where reports are written (default wgpolicyk8s.io PolicyReports). */
  readonly format?: ReportFormat;
}

interface Pending {
  resource: JsonObject;
  readonly responses: Map<string, PolicyResponse>;
  readonly due: number;
}

const ATTEMPTS = 3;

export class AdmissionReports {
  private readonly pending = new Map<string, Pending>();
  private readonly maxPending: number;
  private readonly delayMs: number;
  private readonly now: () => number;
  private readonly interval: ReturnType<typeof setInterval> | undefined;
  private busy: Promise<void> | undefined;
  private droppedInBurst = 0;
  private counts = { dropped: 0, writes: 0 };

  constructor(private readonly o: AdmissionReportsOptions) {
    this.maxPending = o.maxPending ?? 5000;
    this.delayMs = o.delayMs ?? 2000;
    this.now = o.now ?? Date.now;
    if (o.timer !== false) {
      this.interval = setInterval(() => void this.flush(), Math.max(50, this.delayMs / 2));
      this.interval.unref();
    }
  }

  /** The rows of an allowed request: the object as admitted and the responses of the policies evaluated. */
  submit(resource: JsonObject, responses: readonly PolicyResponse[]): void {
    const uid = (resource["metadata"] as { uid?: unknown } | undefined)?.uid;
    const rows = responses.filter((r) => r.rules.length > 0 && reported(r.policy));
    if (typeof uid !== "string" || uid === "" || rows.length === 0) return;
    let entry = this.pending.get(uid);
    if (entry === undefined) {
      if (this.pending.size >= this.maxPending) return this.drop();
      entry = { resource, responses: new Map(), due: this.now() + this.delayMs };
      this.pending.set(uid, entry);
    }
    entry.resource = resource;
    for (const r of rows) entry.responses.set(rowPolicyName(r.policy), r);
  }

  /** Writes the results that are due (all with `all`), one resource at a time. */
  flush(all = false): Promise<void> {
    if (this.busy !== undefined) return this.busy;
    this.busy = this.writeDue(all).finally(() => (this.busy = undefined));
    return this.busy;
  }

  stats(): { readonly pending: number; readonly dropped: number; readonly writes: number } {
    return { pending: this.pending.size, ...this.counts };
  }

  close(): void {
    if (this.interval !== undefined) clearInterval(this.interval);
  }

  private drop(): void {
    this.counts.dropped++;
    if (this.droppedInBurst++ === 0)
      this.o.onLog("warn", "reports: too many resources wait for their admission results; new ones are dropped", {
        maxPending: this.maxPending,
      });
  }

  private async writeDue(all: boolean): Promise<void> {
    const now = this.now();
    for (const [uid, entry] of [...this.pending]) {
      if (!all && entry.due > now) continue;
      this.pending.delete(uid);
      await this.write(entry);
    }
    if (this.pending.size < this.maxPending / 2) this.droppedInBurst = 0;
  }

  /** Merges one resource's rows into its report; a conflict (another writer was first) is read and merged again. */
  private async write(entry: Pending): Promise<void> {
    const meta = entry.resource["metadata"] as { uid: string; namespace?: string; name?: string };
    const ns = meta.namespace ?? "";
    const target = {
      kind: reportKind(this.o.format ?? "wgpolicyk8s", ns === ""),
      metadata: { name: meta.uid, ...(ns !== "" ? { namespace: ns } : {}) },
    };
    for (let attempt = 1; ; attempt++) {
      try {
        const existing = await readReport(this.o.client, target);
        const action = reconcileReport({
          resource: entry.resource,
          responses: [...entry.responses.values()],
          existing,
          nowMillis: this.now(),
          keep: () => true,
          format: this.o.format ?? "wgpolicyk8s",
        });
        if (action.action === "create") await createReport(this.o.client, action.report);
        else if (action.action === "update") await replaceReport(this.o.client, action.report);
        if (action.action !== "none") this.counts.writes++;
        return;
      } catch (e) {
        const status = (e as { status?: unknown }).status;
        if (status === 409 && attempt < ATTEMPTS) continue;
        this.o.onLog("warn", "reports: failed to write admission results to a report", {
          namespace: ns,
          name: meta.name,
          error: (e as Error).message,
        });
        return;
      }
    }
  }
}
