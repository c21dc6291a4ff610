/**
 * The loop that deletes objects labelled `cleanup.kyverno.io/ttl` (on the elected leader only;
 * start.ts), as Kyverno's TTL controller does: every top-level resource the API server serves with
 * list, watch and delete, and that Bylaw's ServiceAccount may list, watch and delete cluster-wide,
 * gets an informer that lists and watches only objects carrying the label. Each tick, ttl.ts decides
 * what is due; this file deletes it, counts it and logs it. A label that cannot be read is logged
 * and gets a Warning Event, once per value; such an object is never deleted.
 */
import { type JsonObject, type Random, TTL_LABEL } from "../../engine/index.js";
import { Informer } from "../../kube/informer.js";
import type { ServedResource } from "../../kube/discovery.js";
import { createEvent, deleteObject, selfCan } from "../../kube/cleanup-calls.js";
import { gvrKey } from "../../kube/types.js";
import { ttlActions } from "./ttl.js";
import { invalidTtlEvent, objectRef } from "./events.js";
import type { LoopDeps } from "./types.js";

interface TtlLoopDeps extends LoopDeps {
  readonly random: Random;
  readonly sleep: (ms: number) => Promise<void>;
  /** Bytes of labelled objects each informer may hold (default 8 MiB). */
  readonly budgetBytes?: number;
}

interface Watched {
  readonly informer: Informer;
  readonly r: ServedResource;
}

export class TtlLoop {
  private readonly watched = new Map<string, Watched>();
  private readonly inflight = new Set<string>();
  private readonly reported = new Map<string, string>();
  private closed = false;

  constructor(private readonly deps: TtlLoopDeps) {}

  /** Starts an informer for each deletable resource Bylaw may list, watch and delete that has none yet. */
  async refresh(): Promise<void> {
    const discovery = await this.deps.discovery();
    const candidates = discovery.resources.filter(
      (r) =>
        r.preferred &&
        !r.resource.includes("/") &&
        ["list", "watch", "delete"].every((v) => r.verbs.includes(v)) &&
        !this.watched.has(gvrKey(r)),
    );
    for (const r of candidates) {
      if (this.closed) return;
      if (!(await this.allowed(r))) continue;
      // Closed while asking: an informer started now would never be stopped (and keep the process alive).
      if (this.closed) return;
      const informer = new Informer({
        client: this.deps.client,
        gvr: r,
        budgetBytes: this.deps.budgetBytes ?? 8 * 1024 * 1024,
        random: this.deps.random,
        sleep: this.deps.sleep,
        labelSelector: TTL_LABEL,
        onLog: (level, message, fields) => this.deps.onLog(level, `cleanup ttl: ${message}`, fields),
      });
      informer.start();
      this.watched.set(gvrKey(r), { informer, r });
    }
  }

  private async allowed(r: ServedResource): Promise<boolean> {
    for (const verb of ["list", "watch", "delete"]) if (!(await selfCan(this.deps.client, verb, r, ""))) return false;
    return true;
  }

  /** The resources watched for the label (`pods.v1`, …), for tests and logs. */
  get resources(): string[] {
    return [...this.watched.keys()];
  }

  tick(): void {
    const now = this.deps.now();
    for (const { informer, r } of this.watched.values()) {
      if (!informer.health().ok) continue;
      const type = { apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`, kind: r.kind };
      const actions = ttlActions(informer.list(), now);
      for (const { object, message } of actions.invalid) void this.reportInvalid(object, message, type);
      for (const { object, propagation } of actions.deletions) void this.remove(r, object, propagation);
    }
  }

  private async reportInvalid(
    object: JsonObject,
    message: string,
    type: { apiVersion: string; kind: string },
  ): Promise<void> {
    const target = objectRef(object, type);
    const key = target.uid ?? `${target.namespace}/${target.name}`;
    if (this.reported.get(key) === message) return;
    this.reported.set(key, message);
    this.deps.onLog("warn", "cleanup ttl: the label cannot be read; the object is not deleted", {
      object: target,
      error: message,
    });
    await createEvent(
      this.deps.client,
      invalidTtlEvent({ target, message, now: this.deps.now(), instance: this.deps.instance }),
    ).catch((e: unknown) => this.deps.onLog("warn", "cleanup ttl: failed to write an Event", { error: String(e) }));
  }

  private async remove(r: ServedResource, object: JsonObject, propagation: string | undefined): Promise<void> {
    const target = objectRef(object, { apiVersion: "", kind: r.kind });
    const key = target.uid ?? `${gvrKey(r)}/${target.namespace}/${target.name}`;
    if (this.inflight.has(key)) return;
    this.inflight.add(key);
    const labels = {
      resource_group: r.group,
      resource_version: r.version,
      resource_resource: r.resource,
      resource_namespace: target.namespace,
    };
    try {
      await deleteObject(this.deps.client, {
        gvr: r,
        namespace: target.namespace,
        name: target.name,
        ...(propagation !== undefined ? { propagation } : {}),
      });
      this.deps.counters.ttlDeleted(labels);
      this.deps.onLog("info", "cleanup ttl: deleted", {
        resource: gvrKey(r),
        namespace: target.namespace,
        name: target.name,
      });
    } catch (e) {
      this.deps.counters.ttlFailed(labels);
      this.deps.onLog("warn", "cleanup ttl: failed to delete", {
        resource: gvrKey(r),
        namespace: target.namespace,
        name: target.name,
        error: (e as Error).message,
      });
    } finally {
      // Deleted objects leave the informer; one that failed is tried again a few seconds later.
      setTimeout(() => this.inflight.delete(key), 5000).unref();
    }
  }

  close(): void {
    this.closed = true;
    for (const { informer } of this.watched.values()) informer.stop();
  }
}
