/**
 * The informer caches `bylaw serve` reads live context from (docs/adr/0009): one shared cache per
 * resource type, started when the policies need it (Namespaces always, for namespaceSelector
 * labels; ConfigMaps when a policy has a configMap entry; each resource an apiCall path names) or,
 * for a path only known at run time, on first use. Ready once every built-in cache has synced and
 * every apiCall cache has synced or failed (readiness()).
 *
 * Budgets a tenant cannot use up for others (issue 32 §5, §10):
 * - memory: the caches share a pool (cache-budget.ts), a total and a share of it per namespace;
 *   a namespace over its share makes reads of that namespace errors, not the cache's;
 * - watched types: apiCall and CEL resource reads may start at most `maxApiCallCaches` resource
 *   types; a namespaced policy's namespace at most `maxApiCallCachesPerNamespace` of them, and
 *   namespaced policies together at most half, so that cluster policies always find the other half.
 */
import type { JsonObject, JsonValue, Random } from "../engine/index.js";
import { parseApiPath } from "./api-path.js";
import { CachePool } from "./cache-budget.js";
import { Informer } from "./informer.js";
import type { KubeClient } from "./kube-client.js";
import { rolesOf, type UserRoles } from "./rbac-roles.js";
import { celResourcesRead } from "./resource-read.js";
import { gvrKey, type Gvr } from "./types.js";

export const NAMESPACES: Gvr = { group: "", version: "v1", resource: "namespaces" };
export const CONFIGMAPS: Gvr = { group: "", version: "v1", resource: "configmaps" };
const ROLEBINDINGS: Gvr = { group: "rbac.authorization.k8s.io", version: "v1", resource: "rolebindings" };
const CLUSTERROLEBINDINGS: Gvr = {
  group: "rbac.authorization.k8s.io",
  version: "v1",
  resource: "clusterrolebindings",
};

interface LiveClusterOptions {
  readonly client: KubeClient;
  /** Memory budget of each cache, in bytes. */
  readonly budgetBytes: number;
  readonly random: Random;
  readonly sleep: (ms: number) => Promise<void>;
  readonly onLog?: (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;
  /**
   * Most resource types apiCall paths may have watched (default 32; Namespaces, ConfigMaps and the
   * RBAC bindings do not count). Policy content decides which types are watched, so a tenant must not
   * be able to make Bylaw watch every type there is.
   */
  readonly maxApiCallCaches?: number;
  /** Most of those one namespace's policies may have started (default 4). */
  readonly maxApiCallCachesPerNamespace?: number;
  /** Bytes all caches may hold together (default: no total beyond each cache's budget). */
  readonly totalBytes?: number;
  /** Bytes one namespace's objects may take in all caches together (default a quarter of the smaller of `budgetBytes` and `totalBytes`). */
  readonly namespaceBytes?: number;
}

/** A policy document and the namespace of the policy ("" for a cluster-wide one). */
interface PolicyReads {
  readonly document: JsonValue;
  readonly namespace: string;
}

type CacheFor = { readonly ok: true; readonly informer: Informer } | { readonly ok: false; readonly reason: string };

const BUILT_IN = new Set([NAMESPACES, CONFIGMAPS, ROLEBINDINGS, CLUSTERROLEBINDINGS].map(gvrKey));

export class LiveCluster {
  private readonly informers = new Map<string, Informer>();
  private readonly synced = new Set<string>();
  /** Who started each apiCall cache: a namespace, or "" once a cluster-wide policy reads it. */
  private readonly startedBy = new Map<string, string>();
  readonly pool: CachePool;

  constructor(private readonly options: LiveClusterOptions) {
    const total = options.totalBytes ?? Infinity;
    this.pool = new CachePool(total, options.namespaceBytes ?? Math.floor(Math.min(options.budgetBytes, total) / 4));
    this.informer(NAMESPACES);
  }

  /** The shared cache of a resource type, started on first ask. */
  informer(gvr: Gvr): Informer {
    const key = gvrKey(gvr);
    let inf = this.informers.get(key);
    if (inf !== undefined) return inf;
    inf = this.ownInformer(gvr);
    this.informers.set(key, inf);
    void inf.synced().then(() => this.synced.add(key));
    this.options.onLog?.("info", "watching a resource for live context", { cache: key });
    return inf;
  }

  /**
   * A cache of Bylaw's own (a loader's, e.g. the GlobalContextEntries'), started now: not in the
   * shared map, so no policy's read reaches, counts against or changes it. The caller stops it.
   */
  ownInformer(gvr: Gvr): Informer {
    const inf = new Informer({
      client: this.options.client,
      gvr,
      budgetBytes: this.options.budgetBytes,
      pool: this.pool,
      random: this.options.random,
      sleep: this.options.sleep,
      ...(this.options.onLog !== undefined ? { onLog: this.options.onLog } : {}),
    });
    inf.start();
    return inf;
  }

  /** Whether a cache has completed its first list (it may since have gone over budget: see `health()`). */
  isSynced(gvr: Gvr): boolean {
    return this.synced.has(gvrKey(gvr));
  }

  /**
   * The cache an apiCall path or CEL resource read needs, started if needed, unless that would pass
   * the watched-type budget of `namespace` (the reading policy's; "" for a cluster-wide policy).
   */
  cacheFor(gvr: Gvr, namespace = ""): CacheFor {
    const key = gvrKey(gvr);
    const existing = this.informers.get(key);
    if (existing !== undefined) {
      if (namespace === "" && this.startedBy.has(key)) this.startedBy.set(key, "");
      return { ok: true, informer: existing };
    }
    if (BUILT_IN.has(key)) return { ok: true, informer: this.informer(gvr) };
    const refused = this.typeBudgetRefuses(key, namespace);
    if (refused !== undefined) return { ok: false, reason: refused };
    this.startedBy.set(key, namespace);
    return { ok: true, informer: this.informer(gvr) };
  }

  /** Why starting one more apiCall cache for `namespace` is refused, if it is. */
  private typeBudgetRefuses(key: string, namespace: string): string | undefined {
    const max = this.options.maxApiCallCaches ?? 32;
    const owners = [...this.startedBy.values()];
    const hint = "(name fewer resource types in apiCall paths and CEL resource reads)";
    if (owners.length >= max)
      return `Bylaw already watches ${owners.length} resource types for apiCall entries, its limit; ${key} is not watched ${hint}`;
    if (namespace === "") return undefined;
    const perNamespace = this.options.maxApiCallCachesPerNamespace ?? 4;
    const mine = owners.filter((o) => o === namespace).length;
    if (mine >= perNamespace)
      return `the policies of namespace ${namespace} already had Bylaw watch ${mine} resource types for apiCall entries, a namespace's limit; ${key} is not watched ${hint}`;
    const tenants = owners.filter((o) => o !== "").length;
    if (tenants >= Math.floor(max / 2))
      return `namespaced policies already had Bylaw watch ${tenants} resource types for apiCall entries, their limit (the other ${max - Math.floor(max / 2)} are kept for cluster-wide policies); ${key} is not watched ${hint}`;
    return undefined;
  }

  /**
   * Starts the caches these policy documents read: configMap entries, apiCall paths with a literal
   * resource, CEL resource.Get/List calls with a literal apiVersion and resource, and RoleBindings
   * and ClusterRoleBindings when a policy mentions roles or clusterRoles. Cluster-wide policies
   * first, so that their types are never refused for types namespaced policies took.
   */
  prepare(policies: readonly PolicyReads[]): void {
    const reads = [...policies].sort((a, b) => (a.namespace === "" ? 0 : 1) - (b.namespace === "" ? 0 : 1));
    for (const { document, namespace } of reads) {
      for (const gvr of [...resourcesRead([document]), ...celResourcesRead([document])]) {
        const c = this.cacheFor(gvr, namespace);
        if (!c.ok) this.options.onLog?.("warn", "a policy's apiCall resource is not watched", { reason: c.reason });
      }
    }
    if (reads.some((p) => readsRoles(p.document))) {
      this.informer(ROLEBINDINGS);
      this.informer(CLUSTERROLEBINDINGS);
    }
  }

  /** Whether roles are read from RBAC watches (a loaded policy mentions roles or clusterRoles). */
  get watchesRoles(): boolean {
    return this.informers.has(gvrKey(ROLEBINDINGS));
  }

  /**
   * The user's roles and clusterRoles from the RBAC caches, as Kyverno computes them. Throws while
   * the caches cannot answer (not synced, over budget), so the review is answered per its
   * failurePolicy instead of being evaluated with no roles.
   */
  roles(user: { readonly username: string; readonly groups: readonly string[] }): UserRoles {
    const rb = this.informer(ROLEBINDINGS);
    const crb = this.informer(CLUSTERROLEBINDINGS);
    for (const [gvr, inf] of [
      [ROLEBINDINGS, rb],
      [CLUSTERROLEBINDINGS, crb],
    ] as const) {
      const h = inf.health();
      if (!this.isSynced(gvr) || !h.ok)
        throw notReady(
          `request.roles cannot be computed: ${h.ok ? `the ${gvrKey(gvr)} cache has not synced yet` : h.reason}`,
        );
    }
    return rolesOf(user, rb.list(), crb.list());
  }

  /** Resolves when every cache started so far has synced (or gone over budget). */
  async ready(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.synced()));
  }

  /**
   * Not ready while a built-in cache (Namespaces, ConfigMaps, RBAC bindings) has not synced, or an
   * apiCall cache is still on its first list. An apiCall cache whose list fails (forbidden to Bylaw's
   * ServiceAccount, no such resource) is named but keeps the server ready: policy content decides
   * which of those start, and a tenant's Policy must not take every replica out of its Service.
   * Rules that read a failing or over-budget cache are errors.
   */
  readiness(): { readonly ok: boolean; readonly reason?: string } {
    const waiting: string[] = [];
    const broken: string[] = [];
    for (const [key, inf] of this.informers) {
      const h = inf.health();
      if (!this.synced.has(key) && (BUILT_IN.has(key) || inf.lastFailure === undefined))
        waiting.push(h.ok ? key : h.reason);
      else if (!h.ok) broken.push(h.reason);
    }
    const failing = broken.length > 0 ? `caches whose rules are errors: ${broken.join("; ")}` : undefined;
    if (waiting.length > 0)
      return {
        ok: false,
        reason: `live context caches not synced yet: ${waiting.join("; ")}${failing !== undefined ? `; ${failing}` : ""}`,
      };
    return failing !== undefined ? { ok: true, reason: failing } : { ok: true };
  }

  /** A namespace's labels from the Namespace cache; undefined when the cache cannot say (not synced, over budget) or the namespace does not exist. */
  namespaceLabels(namespace: string): Readonly<Record<string, string>> | undefined {
    const inf = this.informer(NAMESPACES);
    if (!inf.health().ok) return undefined;
    const ns = inf.get("", namespace);
    return ns === undefined ? undefined : (ns.metadata?.labels ?? {});
  }

  /** A Namespace as the cache holds it (kind and apiVersion set); undefined when the cache cannot say or it does not exist. */
  namespaceObject(namespace: string): JsonObject | undefined {
    const inf = this.informer(NAMESPACES);
    if (!inf.health().ok) return undefined;
    const ns = inf.get("", namespace);
    return ns === undefined ? undefined : { ...ns, apiVersion: "v1", kind: "Namespace" };
  }

  close(): void {
    for (const inf of this.informers.values()) inf.stop();
  }
}

const VARIABLE = /\{\{[^}]*\}\}/g;

/** Whether a policy document mentions roles or clusterRoles anywhere (match/exclude, or a variable like request.roles). */
export function readsRoles(policy: JsonValue): boolean {
  return /\b(roles|clusterRoles)\b/.test(JSON.stringify(policy));
}

/** The resource types policy documents read through context entries, found without evaluating them. */
export function resourcesRead(policies: readonly JsonValue[]): Gvr[] {
  const out = new Map<string, Gvr>();
  const visit = (v: JsonValue | undefined, inContext: boolean): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x, inContext);
      return;
    }
    if (v === null || typeof v !== "object") return;
    if (inContext && v["configMap"] !== undefined) out.set(gvrKey(CONFIGMAPS), CONFIGMAPS);
    const call = inContext ? v["apiCall"] : undefined;
    // A POST is a call, not a read of a cache (live-calls.ts): nothing to watch for it.
    if (
      call !== null &&
      typeof call === "object" &&
      !Array.isArray(call) &&
      typeof call["urlPath"] === "string" &&
      call["method"] !== "POST"
    ) {
      // A variable stands for one ordinary segment; the resource is known only when it is literal.
      const parsed = parseApiPath(call["urlPath"].replace(VARIABLE, "bylaw-variable"));
      const r = parsed.ok ? parsed.value.resource : undefined;
      if (
        r !== undefined &&
        r.subresource === undefined &&
        ![r.group, r.version, r.resource].some((s) => s.includes("bylaw-variable"))
      ) {
        const gvr = { group: r.group, version: r.version, resource: r.resource };
        out.set(gvrKey(gvr), gvr);
      }
    }
    for (const [k, x] of Object.entries(v)) visit(x, inContext || k === "context");
  };
  for (const p of policies) visit(p, false);
  return [...out.values()];
}

/** An Error the admission handlers answer as "not ready" (server ClusterFacts.roles), not as a bug. */
function notReady(message: string): Error {
  const e = new Error(message);
  e.name = "NotReady";
  return e;
}
