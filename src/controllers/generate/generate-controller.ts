/**
 * The generate controller (Kyverno's background controller, `pkg/background/update_request_controller.go`):
 * - `submit`: any replica stores the generate work of an allowed review as UpdateRequests in
 *   Bylaw's namespace, so pending work survives a restart and a leader change;
 * - the loop: on the elected leader only, each Pending UpdateRequest of the informer's cache is run
 *   (generate: run-update-request.ts; mutate: src/controllers/mutate-existing/), one at a time. Completed: the request is deleted. A failure the policy
 *   causes: Failed, with the message. A transient one (the API server, a conflict): retried with
 *   backoff (1 s doubling to 60 s), `status.retryCount` counting, Failed after MAX_RETRIES.
 *   Nothing a request holds can stop the loop: every error ends in the request's status.
 */
import { randomBytes } from "node:crypto";
import {
  type AnyCompiledException,
  type CompiledPolicy,
  type JsonObject,
  type Random,
  typedKindsOf,
  typedSchemaFromOpenApi,
} from "../../engine/index.js";
import { type ClusterTypedKinds, createClusterTypedKinds } from "../../kube/openapi-typed-kinds.js";
import { storeWithRetry } from "./store-update-request.js";
import { Informer } from "../../kube/informer.js";
import { describeKubeError } from "../../kube/cluster-reads.js";
import { createEvent } from "../../kube/cleanup-calls.js";
import { KubeClient, type RateLimit } from "../../kube/kube-client.js";
import { resolveConnection } from "../../kube/kubeconfig.js";
import { KindPaths } from "./kind-paths.js";
import { policyKeyOf, runUpdateRequest, type RunOutcome } from "./run-update-request.js";
import { sourceTriggers } from "./source-triggers.js";
import { GeneratingSync } from "./generating-sync.js";
import { ExistingListError, existingTriggerWork, generateExistingRules } from "./existing-triggers.js";
import { type ListFailureState, reconcileListFailure } from "./existing-list-failure.js";
import { generatesExisting, generatingExistingWork } from "./generating-existing.js";
import { deleteDownstreamOf, rulesDeletedWithPolicy } from "./policy-deleted.js";
import { failedPolicyOf, failureEvent } from "./failure-event.js";
import { CONTROLLER_NAMES, reconcileResult, type OnReconciled } from "../reconcile-metrics.js";
import { runMutateRequest } from "../mutate-existing/run-mutate-request.js";
import { runMutateScan } from "../mutate-existing/run-mutate-scan.js";
import {
  mutateExistingWork,
  mutateOnPolicyUpdateRules,
  mutatesExistingOnAppearance,
  mutatingScanWork,
  mutatingTriggerWork,
} from "../mutate-existing/existing-triggers.js";
import {
  type GenerateWorkItem,
  readUpdateRequest,
  type ResourceSpec,
  type UpdateRequest,
  updateRequestObject,
} from "./update-request.js";

const MAX_RETRIES = 5;
const RESYNC_MS = 10_000;
const POLICY_CHECK_MS = 2_000;
/** How old the cluster's OpenAPI index may be when a mutate request runs (Kyverno's TypeConverterManager polls it every 5 s). */
const TYPES_REFRESH_MS = 5_000;
const UR_GVR = { group: "kyverno.io", version: "v2", resource: "updaterequests" };

type Log = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

interface GenerateControllerOptions {
  readonly kubeconfig?: string;
  /** Bylaw's namespace: where the UpdateRequests live. */
  readonly namespace: string;
  /**
   * The ServiceAccount in `namespace` the controller acts as (`--generate-controller-as`, in the
   * admission controller's process); undefined: its own identity (the background component, which
   * runs as bylaw-background-controller).
   */
  readonly serviceAccount?: string;
  /** `--client-rate-limit-qps` and `--client-rate-limit-burst` (Kyverno's background controller: 100 and 200). */
  readonly rateLimit: RateLimit;
  readonly policies: () => readonly CompiledPolicy[];
  /** The loaded PolicyExceptions (a GeneratingPolicy's policies.kyverno.io ones apply when a request runs). */
  readonly exceptions?: () => readonly AnyCompiledException[];
  /** Only store UpdateRequests, as the admission component does when the background component runs in other processes: no loop, no informer. */
  readonly storeOnly?: boolean;
  /** Only the leader runs requests (without leader election: always). */
  readonly isLeader?: () => boolean;
  readonly random: Random;
  readonly onLog: Log;
  /** This replica's name, in the Events it writes (reportingInstance). */
  readonly instance?: string;
  /** A request completed: what it generated, for the PolicyApplied Events (src/controllers/events). */
  readonly onGenerated?: (policy: string, generated: readonly ResourceSpec[]) => void;
  /** Each request run, as update-request-controller's reconcile (and requeue or drop) on /metrics. */
  readonly onReconciled?: OnReconciled;
  /**
   * How often every policy's existing triggers and targets are turned into work again, as Kyverno's
   * policy controller requeues its policies each `--backgroundScanInterval`; undefined: only when a
   * policy appears or changes.
   */
  readonly requeueMs?: number;
}

interface GenerateController {
  /** Stores the work as UpdateRequests (no wait for it to run). */
  submit(work: readonly GenerateWorkItem[]): void;
  /** The UpdateRequests in Bylaw's namespace as the informer holds them; undefined until it has listed (and when only storing). */
  updateRequests(): number | undefined;
  close(): void;
}

export function startGenerateController(
  options: GenerateControllerOptions,
): { ok: true; value: GenerateController } | { ok: false; error: string } {
  const conn = resolveConnection({
    ...(options.kubeconfig !== undefined ? { kubeconfigFlag: options.kubeconfig } : {}),
    env: process.env,
    now: () => Date.now(),
  });
  if (!conn.ok) return { ok: false, error: `generate controller: ${conn.error.message}` };
  // Every read and write is made as the background controller's ServiceAccount (deploy/base/rbac):
  // its own, or impersonated from the admission controller's process.
  const client = new KubeClient({
    connection: conn.value,
    ...options.rateLimit,
    ...(options.serviceAccount !== undefined
      ? { impersonate: `system:serviceaccount:${options.namespace}:${options.serviceAccount}` }
      : {}),
  });
  const loop = new UpdateRequestLoop(client, options);
  if (options.storeOnly !== true) loop.start();
  return {
    ok: true,
    value: {
      submit: (work) => {
        for (const w of work) void loop.store(w);
      },
      updateRequests: () => loop.count(),
      close: () => {
        loop.stop();
        client.close();
      },
    },
  };
}

class UpdateRequestLoop {
  private readonly informer: Informer;
  private readonly paths: KindPaths;
  private readonly queue = new Set<string>();
  private readonly notBefore = new Map<string, number>();
  private running = false;
  private checking = false;
  private listed = false;
  private timer: NodeJS.Timeout | undefined;
  private policyTimer: NodeJS.Timeout | undefined;
  /** The policies (key and generation) whose existing triggers have been turned into work. */
  private readonly existingDone = new Set<string>();
  /** Those of `existingDone` a periodic requeue took out: their next pass is a requeue, not an appearance. */
  private readonly requeued = new Set<string>();
  private requeueTimer: NodeJS.Timeout | undefined;
  /** Policy generations whose existing triggers could not be listed: when to try again, what was reported. */
  private readonly listFailures = new Map<string, ListFailureState>();
  /** Policies with rules whose downstream goes with them, as last seen: one that leaves the set may have been deleted. */
  private readonly withDownstream = new Map<string, CompiledPolicy>();
  private readonly base: string;
  /** A synchronized GeneratingPolicy's downstream and sources, watched (generating-sync.ts). */
  private readonly sync: GeneratingSync;
  /** The cluster's kinds from its OpenAPI v3, for a mutate-existing MutatingPolicy's ApplyConfiguration. */
  private readonly types: ClusterTypedKinds;
  private typesReadAt = 0;

  constructor(
    private readonly client: KubeClient,
    private readonly options: GenerateControllerOptions,
  ) {
    this.base = `/apis/kyverno.io/v2/namespaces/${encodeURIComponent(options.namespace)}/updaterequests`;
    this.paths = new KindPaths(client);
    this.types = createClusterTypedKinds({
      client,
      schemaOf: typedSchemaFromOpenApi,
      kindsOf: (data) => typedKindsOf(() => data),
    });
    this.sync = new GeneratingSync({
      client,
      paths: this.paths,
      policies: options.policies,
      submit: (work) => void this.store(work),
      random: options.random,
      onLog: options.onLog,
    });
    this.informer = new Informer({
      client,
      gvr: UR_GVR,
      namespace: options.namespace,
      budgetBytes: 64 * 1024 * 1024,
      random: options.random,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms).unref()),
      onEvent: (event, object) => {
        if (event === "deleted") return;
        const name = readUpdateRequest(object).name;
        this.enqueue(name);
      },
      onListed: () => {
        this.listed = true;
        this.enqueueAll();
      },
      onLog: options.onLog,
    });
  }

  start(): void {
    this.informer.start();
    this.timer = setInterval(() => this.enqueueAll(), RESYNC_MS);
    this.timer.unref();
    this.policyTimer = setInterval(() => void this.checkPolicies(), POLICY_CHECK_MS);
    this.policyTimer.unref();
    if (this.options.requeueMs !== undefined) {
      this.requeueTimer = setInterval(() => this.requeuePolicies(), this.options.requeueMs);
      this.requeueTimer.unref();
    }
  }

  /** Every policy's existing work is made again at the next check (Kyverno's forceReconciliation). */
  private requeuePolicies(): void {
    for (const key of this.existingDone) this.requeued.add(key);
    this.existingDone.clear();
  }

  /** The UpdateRequests the cache holds (undefined before its first list). */
  count(): number | undefined {
    return this.listed ? this.informer.list(this.options.namespace).length : undefined;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.policyTimer !== undefined) clearInterval(this.policyTimer);
    if (this.requeueTimer !== undefined) clearInterval(this.requeueTimer);
    this.sync.close();
    this.informer.stop();
  }

  async store(work: GenerateWorkItem): Promise<void> {
    if (work.sourceChanged === true) {
      try {
        for (const w of await sourceTriggers(work, { client: this.client, paths: this.paths })) await this.store(w);
      } catch (e) {
        this.options.onLog("warn", "generate: cannot find the copies of a changed clone source", {
          policy: work.policy,
          source: `${work.trigger.kind} ${work.trigger.namespace}/${work.trigger.name}`,
          error: describeKubeError(e),
        });
      }
      return;
    }
    try {
      // A write the API server did not answer or failed on its side is tried again (store-update-request.ts).
      await storeWithRetry(
        () => this.client.sendJson("POST", this.base, updateRequestObject(work, this.options.namespace)),
        {
          random: this.options.random,
          sleep: (ms) => new Promise((r) => setTimeout(r, ms).unref()),
        },
      );
    } catch (e) {
      this.options.onLog("warn", "generate: cannot store an UpdateRequest; the work is lost", {
        policy: work.policy,
        trigger: `${work.trigger.kind} ${work.trigger.namespace}/${work.trigger.name}`,
        error: describeKubeError(e),
      });
    }
  }

  private async checkPolicies(): Promise<void> {
    if (this.checking || !(this.options.isLeader?.() ?? true)) return;
    this.checking = true;
    try {
      const policies = this.options.policies();
      await this.generateExisting(policies);
      await this.deletedPolicies(policies);
    } finally {
      this.checking = false;
    }
  }

  /** Policies gone from the set since the last check: their synchronized downstream is deleted if they were deleted. */
  private async deletedPolicies(policies: readonly CompiledPolicy[]): Promise<void> {
    const now = new Set(policies.map(policyKeyOf));
    for (const [key, policy] of this.withDownstream) {
      if (now.has(key)) continue;
      this.withDownstream.delete(key);
      try {
        const deleted = await deleteDownstreamOf(policy, { client: this.client, paths: this.paths });
        if (deleted > 0)
          this.options.onLog("info", "generate: deleted a deleted policy's downstream", { policy: key, deleted });
      } catch (e) {
        this.options.onLog("warn", "generate: cannot delete a deleted policy's downstream", {
          policy: key,
          error: describeKubeError(e),
        });
      }
    }
    for (const policy of policies)
      if (rulesDeletedWithPolicy(policy).length > 0) this.withDownstream.set(policyKeyOf(policy), policy);
  }

  /** The existing triggers of each policy with generateExisting (or mutateExistingOnPolicyUpdate) rules that appeared or changed. */
  private async generateExisting(policies: readonly CompiledPolicy[]): Promise<void> {
    for (const policy of policies) {
      if (
        generateExistingRules(policy).length === 0 &&
        mutateOnPolicyUpdateRules(policy).length === 0 &&
        !generatesExisting(policy) &&
        !mutatesExistingOnAppearance(policy)
      )
        continue;
      const generation = (policy.document.metadata as { generation?: unknown } | undefined)?.generation;
      const key = `${policyKeyOf(policy)}@${typeof generation === "number" ? generation : ""}`;
      if (this.existingDone.has(key)) continue;
      const failed = this.listFailures.get(key);
      if (failed !== undefined && Date.now() < failed.retryAtMs) continue;
      this.existingDone.add(key);
      // Kyverno's periodic requeue leaves out a MutatingPolicy with a target expression: its triggers
      // are looked at only when it appears or changes.
      const requeue = this.requeued.delete(key);
      try {
        const deps = { client: this.client, paths: this.paths };
        const work = [
          ...(await existingTriggerWork(policy, deps)),
          ...(await mutateExistingWork(policy, deps)),
          ...(await generatingExistingWork(policy, deps)),
          ...mutatingScanWork(policy),
          ...(requeue ? [] : await mutatingTriggerWork(policy, deps)),
        ];
        this.listFailures.delete(key);
        for (const w of work) await this.store(w);
      } catch (e) {
        this.existingDone.delete(key);
        await this.reportListFailure(policy, key, e);
      }
    }
    const live = new Set(policies.map(policyKeyOf));
    for (const key of this.listFailures.keys())
      if (!live.has(key.slice(0, key.lastIndexOf("@")))) this.listFailures.delete(key);
  }

  /** Existing triggers that could not be listed: in the log, and as a PolicyError Event on the policy (once per failure). */
  private async reportListFailure(policy: CompiledPolicy, key: string, e: unknown): Promise<void> {
    const decision = reconcileListFailure({
      policy: failedPolicyOf(policy),
      rules: [...generateExistingRules(policy), ...mutateOnPolicyUpdateRules(policy)],
      ...(e instanceof ExistingListError ? { list: { verb: e.verb, kind: e.kind, namespace: e.namespace } } : {}),
      error: e instanceof ExistingListError ? e.message : describeKubeError(e),
      previous: this.listFailures.get(key),
      nowMs: Date.now(),
      instance: this.options.instance ?? "bylaw",
      suffix: randomBytes(8).toString("hex"),
    });
    this.listFailures.set(key, decision.state);
    this.options.onLog("warn", "generate: cannot list the existing triggers of a policy", {
      policy: policyKeyOf(policy),
      error: decision.message,
      retryInSeconds: Math.round((decision.state.retryAtMs - Date.now()) / 1000),
    });
    if (decision.event !== undefined) await this.writeEvent(decision.event, policyKeyOf(policy));
  }

  private async writeEvent(event: JsonObject, policy: string): Promise<void> {
    try {
      await createEvent(this.client, event as JsonObject & { readonly metadata: JsonObject });
    } catch (e) {
      this.options.onLog("warn", "generate: cannot write the failure Event", { policy, error: describeKubeError(e) });
    }
  }

  private enqueueAll(): void {
    for (const o of this.informer.list(this.options.namespace)) this.enqueue(readUpdateRequest(o).name);
  }

  private enqueue(name: string): void {
    const due = this.notBefore.get(name) ?? 0;
    const wait = due - Date.now();
    if (wait > 0) {
      setTimeout(() => this.enqueue(name), wait).unref();
      return;
    }
    this.queue.add(name);
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.size > 0 && (this.options.isLeader?.() ?? true)) {
        const name = this.queue.values().next().value as string;
        this.queue.delete(name);
        const raw = this.informer.get(this.options.namespace, name);
        if (raw === undefined) continue;
        const ur = readUpdateRequest(raw);
        if (ur.state !== "Pending") continue;
        await this.process(ur);
      }
    } finally {
      this.running = false;
    }
  }

  /** The cluster's types, its OpenAPI index re-read when last read over TYPES_REFRESH_MS ago (a CRD's schema may have changed). */
  private async freshTypes(): Promise<ClusterTypedKinds> {
    const now = Date.now();
    if (now - this.typesReadAt > TYPES_REFRESH_MS) {
      this.typesReadAt = now;
      const failed = await this.types.refresh();
      if (failed !== undefined)
        this.options.onLog("warn", `mutate-existing: ${failed}; the types read before are kept`, {});
    }
    return this.types;
  }

  private async process(ur: UpdateRequest): Promise<void> {
    let outcome: RunOutcome;
    try {
      const deps = {
        client: this.client,
        paths: this.paths,
        policies: this.options.policies,
        types: await this.freshTypes(),
        ...(this.options.exceptions !== undefined ? { exceptions: this.options.exceptions } : {}),
      };
      const isMutate = ur.requestType === "mutate" || ur.requestType === "cel-mutate";
      outcome =
        ur.requestType === "cel-mutate"
          ? await runMutateScan(ur, deps)
          : isMutate
            ? await runMutateRequest(ur, deps)
            : await runUpdateRequest(ur, deps);
      if (!isMutate && outcome.state === "Completed") this.options.onGenerated?.(ur.policy, outcome.generated);
    } catch (e) {
      outcome = { state: "Failed", message: describeKubeError(e), generated: [], transient: true };
    }
    if (ur.requestType === "cel-generate") await this.noteSync(ur, outcome);
    try {
      await this.finish(ur, outcome);
    } catch (e) {
      this.options.onLog("warn", "generate: cannot update an UpdateRequest's status", {
        updateRequest: ur.name,
        error: describeKubeError(e),
      });
    }
  }

  /** What a GeneratingPolicy's request generated and read is watched when it synchronizes; a failure to watch is logged. */
  private async noteSync(ur: UpdateRequest, outcome: RunOutcome): Promise<void> {
    try {
      await this.sync.note(ur.policy, outcome);
    } catch (e) {
      this.options.onLog("warn", "generate: cannot watch a synchronized policy's downstream", {
        policy: ur.policy,
        error: describeKubeError(e),
      });
    }
  }

  /** A request that failed for good: in the log, and as Kyverno's PolicyError Event on its policy. */
  private async reportFailure(ur: UpdateRequest, message: string): Promise<void> {
    this.options.onLog("warn", "generate: an UpdateRequest failed", {
      updateRequest: ur.name,
      policy: ur.policy,
      message,
    });
    const policy = this.options.policies().find((p) => policyKeyOf(p) === ur.policy);
    if (policy === undefined) return;
    const event = failureEvent(ur, {
      policy: failedPolicyOf(policy),
      message,
      now: new Date(),
      suffix: randomBytes(8).toString("hex"),
      instance: this.options.instance ?? "bylaw",
    });
    await this.writeEvent(event, ur.policy);
  }

  private async finish(ur: UpdateRequest, outcome: RunOutcome): Promise<void> {
    const path = `${this.base}/${encodeURIComponent(ur.name)}`;
    if (outcome.state === "Completed") {
      this.options.onReconciled?.(CONTROLLER_NAMES.updateRequests, { result: "done" });
      this.notBefore.delete(ur.name);
      await this.client.sendJson("DELETE", path, {});
      return;
    }
    const retry = outcome.transient && ur.retryCount < MAX_RETRIES;
    this.options.onReconciled?.(
      CONTROLLER_NAMES.updateRequests,
      reconcileResult({ failed: true, retry, transient: outcome.transient, tries: ur.retryCount + 1 }),
    );
    if (retry) this.notBefore.set(ur.name, Date.now() + Math.min(60_000, 1000 * 2 ** ur.retryCount));
    else this.notBefore.delete(ur.name);
    if (!retry) await this.reportFailure(ur, outcome.message);
    const status = {
      state: retry ? "Pending" : "Failed",
      message: outcome.message,
      retryCount: ur.retryCount + (retry ? 1 : 0),
      ...(outcome.generated.length > 0 ? { generatedResources: outcome.generated } : {}),
    };
    await this.client.sendJson("PATCH", `${path}/status`, { status }, { contentType: "application/merge-patch+json" });
  }
}
