/**
 * `startCleanupController`: the cleanup controller in the `bylaw serve --cluster` process (Kyverno's
 * cleanup-controller: CleanupPolicy / ClusterCleanupPolicy schedules and the
 * `cleanup.kyverno.io/ttl` label). Informers hold the cleanup policies (a CleanupPolicy's reach is
 * its namespace, policy-loop.ts); a timer ticks both loops, and only the elected leader acts.
 */
import type { AnyCompiledException, CompileOutcome, EngineEnv, JsonValue, Random } from "../../engine/index.js";
import type { KubeClient } from "../../kube/kube-client.js";
import { discover, type Discovery } from "../../kube/discovery.js";
import { Informer } from "../../kube/informer.js";
import { CleanupPolicyLoop } from "./policy-loop.js";
import { RUNNABLE_KINDS } from "./runnable.js";
import { TtlLoop } from "./ttl-loop.js";
import type { CleanupCounters, Log } from "./types.js";
import type { OnReconciled } from "../reconcile-metrics.js";

interface CleanupControllerOptions {
  readonly client: KubeClient;
  /** The engine's environment (its ports: live context for the policies' context entries). */
  readonly env: EngineEnv;
  /** The engine's compile, for DeletingPolicies. */
  readonly compile: (doc: JsonValue) => CompileOutcome;
  readonly counters: CleanupCounters;
  /** The policies.kyverno.io PolicyExceptions in force now (a DeletingPolicy keeps what one excepts). */
  readonly exceptions?: () => readonly AnyCompiledException[];
  /** Each policy run, as cleanup-controller's reconcile on /metrics. */
  readonly onReconciled?: OnReconciled;
  readonly onLog: Log;
  /** With leader election, only the leader deletes and writes; default: this replica. */
  readonly isLeader?: () => boolean;
  /** This replica's name, for Events (default $POD_NAME, else "bylaw"). */
  readonly instance?: string;
  readonly tickMs?: number;
  readonly random?: Random;
}

interface CleanupController {
  close(): void;
}

export function startCleanupController(options: CleanupControllerOptions): CleanupController {
  const random = options.random ?? { next: () => Math.random() };
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());
  const deps = {
    client: options.client,
    env: options.env,
    compile: options.compile,
    counters: options.counters,
    ...(options.exceptions !== undefined ? { exceptions: options.exceptions } : {}),
    ...(options.onReconciled !== undefined ? { onReconciled: options.onReconciled } : {}),
    onLog: options.onLog,
    instance: options.instance ?? process.env["POD_NAME"] ?? "bylaw",
    now: () => Date.now(),
    discovery: cachedDiscovery(options.client, options.onLog),
  };
  const informers = RUNNABLE_KINDS.map(({ kind, gvr }) => {
    const informer = new Informer({
      client: options.client,
      gvr,
      budgetBytes: 16 * 1024 * 1024,
      random,
      sleep,
      onLog: (level, message, fields) => options.onLog(level, `cleanup: ${message}`, fields),
    });
    informer.start();
    return { kind, informer };
  });
  const policies = new CleanupPolicyLoop(deps);
  const ttl = new TtlLoop({ ...deps, random, sleep });
  let ttlRefreshed = 0;
  const timer = setInterval(() => {
    if (options.isLeader !== undefined && !options.isLeader()) return;
    policies.tick(
      informers.flatMap(({ kind, informer }) =>
        informer.health().ok ? informer.list().map((object) => ({ kind, object })) : [],
      ),
    );
    // Resources served later (a CRD installed after start) and grants given later (a ClusterRole
    // aggregated to the cleanup controller) are picked up within a minute.
    if (Date.now() - ttlRefreshed > 60_000) {
      // Set again when the pass ends: passes never overlap.
      ttlRefreshed = Infinity;
      void ttl
        .refresh()
        .catch((e: unknown) => options.onLog("warn", "cleanup ttl: discovery failed", { error: String(e) }))
        .finally(() => (ttlRefreshed = Date.now()));
    }
    ttl.tick();
  }, options.tickMs ?? 1000);
  timer.unref();
  options.onLog("info", "cleanup controller started", {});
  return {
    close: () => {
      clearInterval(timer);
      ttl.close();
      for (const { informer } of informers) informer.stop();
    },
  };
}

/** Discovery, read again when older than a minute (a kind served since is then found). */
function cachedDiscovery(client: KubeClient, onLog: Log): () => Promise<Discovery> {
  let last: { at: number; value: Promise<Discovery> } | undefined;
  return () => {
    if (last === undefined || Date.now() - last.at > 60_000) {
      const value = discover(client);
      value.then(
        (d) => d.warnings.forEach((w) => onLog("warn", `cleanup: ${w}`, {})),
        () => (last = undefined),
      );
      last = { at: Date.now(), value };
    }
    return last.value;
  };
}
