/**
 * The loop that runs cleanup policies (on the elected leader only; start.ts): each tick it looks at
 * every CleanupPolicy, ClusterCleanupPolicy, DeletingPolicy and NamespacedDeletingPolicy the
 * informers hold (runnable.ts: one shape for both families), compiles a new or
 * changed one and checks that Bylaw's ServiceAccount may list and delete each kind it matches,
 * writes its Ready condition, and runs it when its schedule is due (reconcile.ts decides; this file
 * lists, deletes, counts, logs, writes Events and the status through src/kube).
 */
import type { JsonObject } from "../../engine/index.js";
import { cleanupStatus, cleanupTiming, type NotReady } from "./reconcile.js";
import { compileRunnable, RUNNABLE_KINDS, type RunnablePolicy } from "./runnable.js";
import { cleanupEvent, objectRef, type PolicyRef } from "./events.js";
import { createEvent, deleteObject, patchCleanupStatus, selfCan } from "../../kube/cleanup-calls.js";
import { selectServed, type ResourceSelector, type ServedResource } from "../../kube/discovery.js";
import { listObjects, listScope } from "../../kube/list-objects.js";
import { KubeError } from "../../kube/kube-client.js";
import type { KubeObject } from "../../kube/types.js";
import type { CleanupCounters, CleanupMetricLabels, LoopDeps } from "./types.js";
import { ownNamespaceFacts } from "../namespace-facts.js";
import { namespaceFactsReader } from "./namespace-facts-reader.js";
import { CONTROLLER_NAMES } from "../reconcile-metrics.js";

interface PolicyState {
  readonly rv: string;
  readonly compiled: RunnablePolicy | undefined;
  /** Why it cannot run as written (invalid, a kind Bylaw may not list or delete); undefined: Ready. */
  notReady: NotReady | undefined;
  /** A deletion the API server refused at the last run. */
  refused: NotReady | undefined;
  lastRun: number | undefined;
}

export class CleanupPolicyLoop {
  private readonly states = new Map<string, PolicyState>();
  private readonly busy = new Set<string>();

  constructor(private readonly deps: LoopDeps) {}

  /** One pass over the policies the informers hold (kind: CleanupPolicy or ClusterCleanupPolicy). */
  tick(policies: readonly { readonly kind: string; readonly object: KubeObject }[]): void {
    const seen = new Set<string>();
    for (const { kind, object } of policies) {
      const key = `${kind}/${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`;
      seen.add(key);
      if (this.busy.has(key)) continue;
      this.busy.add(key);
      void this.visit(key, kind, object)
        .catch((e: unknown) =>
          this.deps.onLog("error", "cleanup: policy pass failed", { policy: key, error: String(e) }),
        )
        .finally(() => this.busy.delete(key));
    }
    for (const key of this.states.keys()) if (!seen.has(key)) this.states.delete(key);
  }

  private async visit(key: string, kind: string, object: KubeObject): Promise<void> {
    const rv = object.metadata?.resourceVersion ?? "";
    let state = this.states.get(key);
    if (state === undefined || state.rv !== rv) {
      state = await this.prepare(kind, object, rv, state);
      this.states.set(key, state);
    }
    const current = statusOf(object);
    const timing =
      state.compiled === undefined
        ? undefined
        : cleanupTiming({
            schedule: state.compiled.schedule,
            creationTimestamp: stringAt(object.metadata, "creationTimestamp"),
            lastExecutionTime: latest(stringAt(current, "lastExecutionTime"), state.lastRun),
            now: this.deps.now(),
          });
    if (timing !== undefined && !timing.ok) state.notReady = { reason: "InvalidSchedule", message: timing.error };
    let ran: number | undefined;
    if (timing?.ok === true && timing.due && state.compiled !== undefined) {
      state.refused = await this.run(state.compiled, policyRef(kind, object));
      this.deps.onReconciled?.(CONTROLLER_NAMES.cleanup, { result: "done" });
      state.lastRun = timing.executionTime;
      ran = timing.executionTime;
    }
    await this.writeStatus(kind, object, { ran, notReady: state.notReady ?? state.refused });
  }

  private async prepare(
    kind: string,
    object: KubeObject,
    rv: string,
    old: PolicyState | undefined,
  ): Promise<PolicyState> {
    const compiled = compileRunnable(kind, object, this.deps);
    if (!compiled.ok) {
      const message = compiled.error;
      return {
        rv,
        compiled: undefined,
        notReady: { reason: "Invalid", message },
        refused: undefined,
        lastRun: old?.lastRun,
      };
    }
    const notReady = await this.access(compiled.value);
    return { rv, compiled: compiled.value, notReady, refused: old?.refused, lastRun: old?.lastRun };
  }

  /** What Bylaw may not do that the policy needs: list and delete each kind it matches (in its namespace). */
  private async access(policy: RunnablePolicy): Promise<NotReady | undefined> {
    const missing: string[] = [];
    for (const { label, selector } of policy.selectors) {
      const served = await this.served(policy, selector);
      if (served.length === 0) {
        missing.push(`no resource ${selector.by === "kind" ? "of kind " : ""}${label} is served by the API server`);
        continue;
      }
      for (const r of served) {
        const verbs: string[] = [];
        for (const verb of ["list", "delete"])
          if (!(await selfCan(this.deps.client, verb, r, policy.namespace))) verbs.push(verb);
        if (verbs.length > 0)
          missing.push(
            `Bylaw's ServiceAccount may not ${verbs.join(" or ")} ${listScope(r, policy.namespace || undefined)}`,
          );
      }
    }
    if (missing.length === 0) return undefined;
    return {
      reason: "Forbidden",
      message: `${missing.join("; ")}: grant them to Bylaw with a ClusterRole labelled rbac.kyverno.io/aggregate-to-cleanup-controller: "true" (docs/cluster.md, "Cleanup")`,
    };
  }

  /** The top-level resources a match kind or resource rule names (a namespaced policy: namespaced ones only). */
  private async served(policy: RunnablePolicy, selector: ResourceSelector): Promise<ServedResource[]> {
    const found = selectServed(await this.deps.discovery(), selector).filter(
      (r) => r.verbs.includes("delete") && (policy.namespace === "" || r.namespaced),
    );
    return found;
  }

  /** Lists, decides and deletes; answers why a deletion was refused (403), if one was. */
  private async run(policy: RunnablePolicy, ref: PolicyRef): Promise<NotReady | undefined> {
    const { onLog } = this.deps;
    onLog("info", "cleanup: running policy", { kind: ref.kind, name: ref.name, namespace: ref.namespace });
    const namespaces = namespaceFactsReader(this.deps.client);
    let refused: NotReady | undefined;
    for (const { label, selector } of policy.selectors) {
      const common = {
        policy_name: ref.name,
        policy_namespace: ref.namespace,
        policy_type: ref.kind,
        resource_kind: label,
        deletion_propagation: policy.propagation ?? "",
      };
      for (const r of await this.served(policy, selector)) {
        const objects = await listObjects(this.deps.client, r, policy.namespace || undefined).catch(
          (e: unknown) => e as Error,
        );
        if (objects instanceof Error) {
          count(this.deps.counters, policy, "failed", { ...common, resource_namespace: "" });
          onLog("warn", "cleanup: failed to list resources", {
            policy: ref.name,
            resource: r.resource,
            error: objects.message,
          });
          continue;
        }
        const candidates = [];
        for (const resource of objects)
          candidates.push({
            resource,
            ...(ownNamespaceFacts(resource) ?? (await namespaces(objectRef(resource, typeOf(r)).namespace))),
            plural: r.resource,
          });
        const decided = policy.decide(candidates, this.deps.env, this.deps.exceptions?.());
        for (const e of decided.errors) await this.undecided(ref, objectRef(e.resource, typeOf(r)), e.message);
        for (const resource of decided.deletions)
          refused = (await this.remove({ ref, r, resource, common, policy })) ?? refused;
      }
    }
    return refused;
  }

  private async remove(input: {
    ref: PolicyRef;
    r: ServedResource;
    resource: JsonObject;
    common: Omit<CleanupMetricLabels, "resource_namespace">;
    policy: RunnablePolicy;
  }): Promise<NotReady | undefined> {
    const { ref, r, resource, common } = input;
    const target = objectRef(resource, typeOf(r));
    const labels = { ...common, resource_namespace: target.namespace };
    const now = this.deps.now();
    try {
      await deleteObject(this.deps.client, {
        gvr: r,
        namespace: target.namespace,
        name: target.name,
        ...(input.policy.propagation !== undefined ? { propagation: input.policy.propagation } : {}),
      });
    } catch (e) {
      const message = (e as Error).message;
      count(this.deps.counters, input.policy, "failed", labels);
      this.deps.onLog("warn", "cleanup: failed to delete resource", {
        policy: ref.name,
        object: target,
        error: message,
      });
      await this.event(cleanupEvent({ policy: ref, target, error: message, now, instance: this.deps.instance }));
      return e instanceof KubeError && e.status === 403
        ? {
            reason: "Forbidden",
            message: `deleting ${target.kind} ${target.namespace}/${target.name} was refused: ${message}`,
          }
        : undefined;
    }
    count(this.deps.counters, input.policy, "deleted", labels);
    this.deps.onLog("info", "cleanup: resource matched, deleted", {
      policy: ref.name,
      kind: target.kind,
      namespace: target.namespace,
      name: target.name,
    });
    await this.event(cleanupEvent({ policy: ref, target, error: undefined, now, instance: this.deps.instance }));
    return undefined;
  }

  /** An object the policy cannot decide for (a condition errors) is not deleted: logged, and a PolicyError Event says why. */
  private async undecided(ref: PolicyRef, target: ReturnType<typeof objectRef>, message: string): Promise<void> {
    this.deps.onLog("warn", "cleanup: cannot evaluate the policy for an object; it is not deleted", {
      policy: ref.name,
      object: target,
      error: message,
    });
    const error = `${message}; it was not deleted`;
    await this.event(cleanupEvent({ policy: ref, target, error, now: this.deps.now(), instance: this.deps.instance }));
  }

  private async event(e: JsonObject & { metadata: JsonObject }): Promise<void> {
    await createEvent(this.deps.client, e).catch((err: unknown) =>
      this.deps.onLog("warn", "cleanup: failed to write an Event", { error: String(err) }),
    );
  }

  private async writeStatus(
    kind: string,
    object: KubeObject,
    change: { ran: number | undefined; notReady: NotReady | undefined },
  ): Promise<void> {
    const gvr = RUNNABLE_KINDS.find((k) => k.kind === kind)?.gvr;
    const cel = gvr?.group === "policies.kyverno.io";
    const status = cleanupStatus({
      current: cel ? conditionStatusOf(object) : statusOf(object),
      lastExecutionTime: change.ran,
      notReady: change.notReady,
      now: this.deps.now(),
    });
    if (change.ran === undefined && sameReady(cel ? conditionStatusOf(object) : statusOf(object), status)) return;
    const ref = {
      namespace: object.metadata?.namespace ?? "",
      name: object.metadata?.name ?? "",
      ...(gvr ? { gvr } : {}),
    };
    await patchCleanupStatus(this.deps.client, ref, cel ? celShape(status, statusOf(object)) : status).catch(
      (e: unknown) =>
        this.deps.onLog("warn", "cleanup: failed to write the policy status", { policy: ref.name, error: String(e) }),
    );
  }
}

/** Counts a deletion (or a failed one) under the policy's family: kyverno_cleanup_controller_* or kyverno_deleting_controller_*. */
function count(
  counters: CleanupCounters,
  policy: RunnablePolicy,
  outcome: "deleted" | "failed",
  labels: CleanupMetricLabels,
): void {
  if (policy.counted === "cleanup") {
    counters[outcome](labels);
    return;
  }
  const { resource_kind, ...rest } = labels;
  counters[outcome === "deleted" ? "deletingDeleted" : "deletingFailed"]({ ...rest, resource: resource_kind });
}

function typeOf(r: ServedResource): { apiVersion: string; kind: string } {
  return { apiVersion: r.group === "" ? r.version : `${r.group}/${r.version}`, kind: r.kind };
}

function policyRef(kind: string, object: KubeObject): PolicyRef {
  const gvr = RUNNABLE_KINDS.find((k) => k.kind === kind)?.gvr;
  return {
    kind,
    ...(gvr !== undefined ? { apiVersion: `${gvr.group}/${gvr.version}` } : {}),
    name: object.metadata?.name ?? "",
    namespace: object.metadata?.namespace ?? "",
    uid: stringAt(object.metadata, "uid") ?? "",
  };
}

function statusOf(object: KubeObject): JsonObject | undefined {
  const s = object["status"];
  return s !== null && typeof s === "object" && !Array.isArray(s) ? s : undefined;
}

/**
 * A DeletingPolicy's status as its CRD has it: `lastExecutionTime`, and the Ready condition under
 * `conditionStatus` with `ready` (what `kubectl get dpol` shows) and the message when not ready.
 */
function celShape(status: JsonObject, current: JsonObject | undefined): JsonObject {
  const { lastExecutionTime, conditions } = status;
  const ready = Array.isArray(conditions) && conditions.some((c) => isReady(c));
  const message = ready ? "" : messageOf(conditions);
  const last = lastExecutionTime ?? current?.["lastExecutionTime"];
  return {
    ...(last !== undefined ? { lastExecutionTime: last } : {}),
    conditionStatus: { ready, message, conditions: conditions ?? [] },
  };
}

function isReady(c: unknown): boolean {
  return c !== null && typeof c === "object" && (c as JsonObject)["status"] === "True";
}

function messageOf(conditions: unknown): string {
  const first: unknown = Array.isArray(conditions) ? conditions[0] : undefined;
  return stringAt(first, "message") ?? "";
}

/** A DeletingPolicy's conditions, where cleanupStatus reads a kyverno.io policy's (`conditions`, `lastExecutionTime`). */
function conditionStatusOf(object: KubeObject): JsonObject | undefined {
  const s = statusOf(object);
  const cs = s?.["conditionStatus"];
  const inner = cs !== null && typeof cs === "object" && !Array.isArray(cs) ? cs : {};
  if (s === undefined) return undefined;
  return {
    ...inner,
    ...(typeof s["lastExecutionTime"] === "string" ? { lastExecutionTime: s["lastExecutionTime"] } : {}),
  };
}

function stringAt(o: unknown, key: string): string | undefined {
  if (o === null || typeof o !== "object") return undefined;
  const v = (o as Record<string, unknown>)[key];
  return typeof v === "string" ? v : undefined;
}

/** The later of the status's lastExecutionTime and the run this loop recorded (the informer may lag). */
function latest(status: string | undefined, ran: number | undefined): string | undefined {
  if (ran === undefined) return status;
  const s = status === undefined ? NaN : Date.parse(status);
  return !Number.isNaN(s) && s >= ran ? status : new Date(ran).toISOString();
}

function sameReady(current: JsonObject | undefined, next: JsonObject): boolean {
  const pick = (s: JsonObject | undefined): string => {
    const c = Array.isArray(s?.["conditions"])
      ? s["conditions"].find((x) => (x as JsonObject)?.["type"] === "Ready")
      : undefined;
    const o = (c ?? {}) as JsonObject;
    return JSON.stringify([o["status"], o["reason"], o["message"]]);
  };
  return pick(current) === pick(next);
}
