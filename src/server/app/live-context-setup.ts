/**
 * `bylaw serve --cluster` / `--kubeconfig FILE`: live context from the API server (src/kube).
 * Namespace labels come from a Namespace cache, configMap and apiCall entries from caches of the
 * resources they read (docs/adr/0009). Readiness waits for the caches to sync.
 */
import {
  type CompiledPolicy,
  type ContextSources,
  type Engine,
  type JsonValue,
  typedKindsOf,
  typedSchemaFromOpenApi,
} from "../../engine/index.js";
import { type ClusterTypedKinds, createClusterTypedKinds } from "../../kube/openapi-typed-kinds.js";
import { EgressPolicy } from "../../kube/egress/egress-policy.js";
import { KubeClient, type RateLimit } from "../../kube/kube-client.js";
import { policyUsesNetworkCalls } from "../../kube/live-calls.js";
import { CallScopes } from "../../kube/review-calls.js";
import { GlobalContextEntries } from "../../kube/global-context/global-context-entries.js";
import type { Compile } from "../../kube/global-context/global-entry.js";
import type { ReviewCallsPort } from "../admission/review-calls-loop.js";
import type { TypesPort } from "../admission/deps.js";
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
  /** The cluster's kinds from its OpenAPI v3, a MutatingPolicy's ApplyConfiguration is typed with (index re-read every 5 s). */
  readonly types: ClusterTypedKinds;
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
  const types = createClusterTypedKinds({
    client,
    schemaOf: typedSchemaFromOpenApi,
    kindsOf: (data) => typedKindsOf(() => data),
  });
  const refresh = typesRefresh(types, options.onLog);
  return {
    ok: true,
    value: {
      cluster,
      reviewCalls,
      types,
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
        clearInterval(refresh);
        globals.close();
        cluster.close();
        client.close();
      },
    },
  };
}

/** The admission handlers' port to the cluster's types: a load bounded by the review's time left. */
export function typesPort(types: ClusterTypedKinds): TypesPort {
  return {
    ready: (apiVersion, kind) => types.ready(apiVersion, kind),
    load: (apiVersion, seconds) =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, seconds * 1000);
        // A load that throws leaves the kind untyped: the policy's error says it was not read in time.
        void types
          .load([apiVersion])
          .catch(() => undefined)
          .finally(() => {
            clearTimeout(timer);
            resolve();
          });
      }),
  };
}

/** Seconds between reads of /openapi/v3's index (Kyverno's, through apiserver's TypeConverterManager: 5). */
const TYPES_REFRESH_SECONDS = 5;

/** Re-reads the OpenAPI index every few seconds while types are held; a failure is logged when it starts and when it ends. */
function typesRefresh(types: ClusterTypedKinds, onLog: LiveLog): ReturnType<typeof setInterval> {
  let failing = false;
  const timer = setInterval(() => {
    void types.refresh().then((reason) => {
      if (reason !== undefined && !failing) onLog("warn", `${reason}; the types read before are kept`, {});
      else if (reason === undefined && failing) onLog("info", "the cluster's OpenAPI v3 index is read again", {});
      failing = reason !== undefined;
    });
  }, TYPES_REFRESH_SECONDS * 1000);
  timer.unref();
  return timer;
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
