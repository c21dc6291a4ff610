/**
 * `bylaw serve --cluster` / `--kubeconfig FILE`: live context from the API server (src/kube).
 * Namespace labels come from a Namespace cache, configMap and apiCall entries from caches of the
 * resources they read (docs/adr/0009). Readiness waits for the caches to sync.
 */
import type { CompiledPolicy, Engine, JsonValue, ContextSources } from "../../engine/index.js";
import { EgressPolicy } from "../../kube/egress/egress-policy.js";
import { KubeClient, type RateLimit } from "../../kube/kube-client.js";
import { policyUsesNetworkCalls } from "../../kube/live-calls.js";
import { CallScopes } from "../../kube/review-calls.js";
import { GlobalContextEntries } from "../../kube/global-context/global-context-entries.js";
import type { Compile } from "../../kube/global-context/global-entry.js";
import type { ReviewCallsPort } from "../admission/review-calls-loop.js";
import { resolveConnection } from "../../kube/kubeconfig.js";
import { LiveCluster, readsRoles } from "../../kube/live-cluster.js";
import { liveContextSources } from "../../kube/live-context.js";
import { liveRegistry } from "./registry-setup.js";
import type { PolicySource } from "../types.js";
import { celSpecOf } from "../policy-source/cel-policy-compile.js";

export interface LiveContext {
  readonly cluster: LiveCluster;
  readonly context: ContextSources;
  readonly origin: string;
  /** The API client, for the watches and writes beyond live context (policies from the cluster, their status). */
  readonly client: KubeClient;
  /** Reviews whose policies make network calls (apiCall POST, service) are evaluated in passes through this. */
  readonly reviewCalls: ReviewCallsPort;
  /** Starts the caches each loaded policy set reads; returns the unsubscribe. */
  follow(source: PolicySource): () => void;
  close(): void;
}

type LiveLog = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

interface LiveContextOptions {
  readonly kubeconfig?: string;
  readonly cacheMiB: number;
  /** `--client-rate-limit-qps` and `--client-rate-limit-burst`: the budget of admission's reads. */
  readonly rateLimit: RateLimit;
  /** The memory limit (--memory-limit or the container's): the caches together take at most an eighth of it. */
  readonly memoryLimitBytes?: number;
  readonly onLog: LiveLog;
  /** `--egress-allow`: CIDRs policy-controlled calls may reach although the egress filter refuses them by default. */
  readonly egressAllow?: readonly string[];
  /** JMESPath in Kyverno's dialect for GlobalContextEntry projections (the engine's; asked once entries load). */
  readonly compile: () => Compile;
  /** Whether this replica writes shared objects (GlobalContextEntry status); default always, until leader election lands. */
  readonly isLeader?: () => boolean;
  /** `--image-pull-secret`: pull secrets in Bylaw's namespace for every registry call (Kyverno's --imagePullSecrets). */
  readonly imagePullSecrets?: readonly string[];
  /** Bylaw's namespace (where bare pull secret names are read); default $POD_NAMESPACE, else bylaw. */
  readonly ownNamespace?: string;
}

export function setUpLiveContext(
  options: LiveContextOptions,
): { ok: true; value: LiveContext } | { ok: false; error: string } {
  const conn = resolveConnection({
    ...(options.kubeconfig !== undefined ? { kubeconfigFlag: options.kubeconfig } : {}),
    env: process.env,
    now: () => Date.now(),
  });
  if (!conn.ok) return { ok: false, error: conn.error.message };
  const egress = EgressPolicy.create(options.egressAllow ?? []);
  if (!egress.ok) return { ok: false, error: egress.error.message };
  const client = new KubeClient({ connection: conn.value, ...options.rateLimit });
  const cluster = new LiveCluster({
    client,
    ...cacheBudgets(options),
    random: { next: Math.random },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms).unref()),
    onLog: options.onLog,
  });
  const scopes = new CallScopes();
  const calls = {
    scopes,
    post: (path: string, body: JsonValue) => client.sendJson("POST", path, body),
    egress: { policy: egress.value },
  };
  const globals = new GlobalContextEntries({
    cluster,
    client,
    egress: calls.egress,
    compile: options.compile,
    ...(options.isLeader !== undefined ? { isLeader: options.isLeader } : {}),
    onLog: options.onLog,
  });
  const uses = new WeakMap<CompiledPolicy, boolean>();
  const reviewCalls: ReviewCallsPort = {
    usesCalls: (policy) => {
      let u = uses.get(policy);
      if (u === undefined) uses.set(policy, (u = policyUsesNetworkCalls(policy)));
      return u;
    },
    begin: () => scopes.begin(),
  };
  return {
    ok: true,
    value: {
      cluster,
      reviewCalls,
      context: liveContextSources(cluster, {
        calls,
        globals,
        registry: liveRegistry(client, scopes, egress.value, options),
      }),
      origin: conn.value.origin,
      client,
      follow: (source) => {
        const prepare = (): void => {
          // A CEL policy's expressions are in the spec it was compiled from, not in its compiled document.
          const reads = source.current().policies.map((p) => ({
            document: (celSpecOf(p) ?? p.document) as unknown as JsonValue,
            namespace: p.namespace,
          }));
          cluster.prepare(reads);
          // Only a cluster-wide policy may read a globalReference: a namespaced one starts no loader.
          if (reads.some((r) => r.namespace === "" && JSON.stringify(r.document).includes('"globalReference"')))
            globals.start();
        };
        prepare();
        return source.onChange((event) => {
          if (event.kind === "loaded") prepare();
        });
      },
      close: () => {
        globals.close();
        cluster.close();
        client.close();
      },
    },
  };
}

/**
 * The live-context caches' memory: each cache at most --cluster-cache-mib; all of them together at
 * most an eighth of the memory limit when there is one (32 MiB of 256 MiB); one namespace's
 * objects, in all caches together, at most a quarter of the smaller of those (8 MiB of 256 MiB;
 * 32 MiB with no limit and the default 128 MiB per cache).
 */
function cacheBudgets(options: { readonly cacheMiB: number; readonly memoryLimitBytes?: number }): {
  readonly budgetBytes: number;
  readonly totalBytes?: number;
  readonly namespaceBytes: number;
} {
  const budgetBytes = options.cacheMiB * 1024 * 1024;
  const total = options.memoryLimitBytes === undefined ? undefined : Math.floor(options.memoryLimitBytes / 8);
  return {
    budgetBytes,
    ...(total !== undefined ? { totalBytes: total } : {}),
    namespaceBytes: Math.floor(Math.min(budgetBytes, total ?? Infinity) / 4),
  };
}

const readsRolesMemo = new WeakMap<CompiledPolicy, boolean>();

/**
 * Whether a loaded policy reads the user's roles: the same test `prepare` starts the RBAC watches
 * by (kube/live-cluster.ts `readsRoles`), over the same document, once per compiled policy.
 */
export function policyReadsRoles(policy: CompiledPolicy): boolean {
  let reads = readsRolesMemo.get(policy);
  if (reads === undefined)
    readsRolesMemo.set(policy, (reads = readsRoles((celSpecOf(policy) ?? policy.document) as unknown as JsonValue)));
  return reads;
}

/** The source's readiness and the caches': ready when both are. */
export function withLiveReadiness<S extends PolicySource & { readiness(): { ok: boolean; reason?: string } }>(
  source: S,
  live: LiveContext | undefined,
): S {
  if (live === undefined) return source;
  return new Proxy(source, {
    get(target, prop, receiver) {
      if (prop === "readiness") {
        return () => {
          const a = target.readiness();
          const b = live.cluster.readiness();
          const reasons = [a.reason, b.reason].filter((r): r is string => r !== undefined);
          return { ok: a.ok && b.ok, ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {}) };
        };
      }
      const v: unknown = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** The engine's JMESPath (Kyverno's dialect and functions) as GlobalContextEntry projections use it. */
export function jmespathOf(engine: Engine): Compile {
  return (expression) => {
    const compiled = engine.env.jmespath.compile(expression);
    return (data) => compiled.search(data, engine.env.fnctx);
  };
}
