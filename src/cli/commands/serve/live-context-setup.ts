/**
 * `bylaw serve --cluster` / `--kubeconfig FILE`: live context from the API server (src/kube).
 * Namespace labels come from a Namespace cache, configMap and apiCall entries from caches of the
 * resources they read (docs/adr/0009). Readiness waits for the caches to sync.
 */
import type { JsonValue, ContextSources } from "../../../engine/index.js";
import { KubeClient } from "../../../kube/kube-client.js";
import { resolveConnection } from "../../../kube/kubeconfig.js";
import { LiveCluster } from "../../../kube/live-cluster.js";
import { liveContextSources } from "../../../kube/live-context.js";
import type { PolicySource } from "../../../server/types.js";

export interface LiveContext {
  readonly cluster: LiveCluster;
  readonly context: ContextSources;
  readonly origin: string;
  /** The API client, for the watches and writes beyond live context (policies from the cluster, their status). */
  readonly client: KubeClient;
  /** Starts the caches each loaded policy set reads; returns the unsubscribe. */
  follow(source: PolicySource): () => void;
  close(): void;
}

export type LiveLog = (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;

export function setUpLiveContext(options: { readonly kubeconfig?: string; readonly cacheMiB: number; readonly onLog: LiveLog }): { ok: true; value: LiveContext } | { ok: false; error: string } {
  const conn = resolveConnection({ ...(options.kubeconfig !== undefined ? { kubeconfigFlag: options.kubeconfig } : {}), env: process.env, now: () => Date.now() });
  if (!conn.ok) return { ok: false, error: conn.error.message };
  const client = new KubeClient({ connection: conn.value });
  const cluster = new LiveCluster({
    client,
    budgetBytes: options.cacheMiB * 1024 * 1024,
    random: { next: Math.random },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms).unref()),
    onLog: options.onLog,
  });
  return {
    ok: true,
    value: {
      cluster,
      context: liveContextSources(cluster),
      origin: conn.value.origin,
      client,
      follow: (source) => {
        const prepare = (): void => cluster.prepare(source.current().policies.map((p) => p.document as unknown as JsonValue));
        prepare();
        return source.onChange((event) => {
          if (event.kind === "loaded") prepare();
        });
      },
      close: () => {
        cluster.close();
        client.close();
      },
    },
  };
}

/** The source's readiness and the caches': ready when both are. */
export function withLiveReadiness<S extends PolicySource & { readiness(): { ok: boolean; reason?: string } }>(source: S, live: LiveContext | undefined): S {
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
