/**
 * A list-then-watch cache of one resource type (client-go's reflector and store, kept small):
 * - LIST in pages (`limit`/`continue`), then WATCH from the list's resourceVersion with
 *   `allowWatchBookmarks`; each event moves the resourceVersion on, bookmarks included, so a
 *   re-watch resumes where the last one ended;
 * - a watch or list that fails is retried after a jittered exponential backoff; 410 Gone (the
 *   resourceVersion was compacted), as a status or an ERROR event, relists from scratch;
 * - objects are kept by `namespace/name` with a namespace index, without managedFields;
 * - a memory budget (cache-budget.ts) that holds at every moment: each list page is read under a
 *   byte cap of what is left of it and at most a few MiB (list-page.ts: the page shrinks until it
 *   fits, reading stops at the cap and never buffers past it), a watch event over the per-event
 *   bound is an error that relists, and a relist holds the old store beside the new one only
 *   while both fit (else the old one is dropped first and reads are errors until the relist ends).
 *   Over the budget the cache drops its objects, stops, and reports unhealthy with the reason, so
 *   rules that read it are errors;
 * - with a pool (live context's caches), a namespace over its share of the pool has its objects
 *   dropped from this cache (only their sizes are kept): reads of that namespace, and of all
 *   namespaces, are errors naming the share, while other namespaces read as before. When its
 *   objects fit again (deleted or shrunk) the cache relists and holds them again.
 * Clock and randomness are injected (`sleep`, `random`).
 */
import type { Random } from "../engine/index.js";
import { Backoff } from "./backoff.js";
import { CacheBudget, mib, type CachePool } from "./cache-budget.js";
import { KubeError, type WatchStream } from "./kube-client.js";
import { readPage, type PageClient } from "./list-page.js";
import { gvrKey, gvrPath, type Gvr, type KubeObject } from "./types.js";

export type InformerEvent = "added" | "modified" | "deleted";

interface InformerOptions {
  readonly client: PageClient & {
    watch(
      path: string,
      onEvent: (event: unknown) => void,
      maxLineBytes?: number,
      read?: { readonly metadataOnly?: boolean },
    ): WatchStream;
  };
  readonly gvr: Gvr;
  /** Bytes of object JSON the cache may hold. */
  readonly budgetBytes: number;
  /** The budget shared with other caches: a total, and a share per namespace (cache-budget.ts). */
  readonly pool?: CachePool;
  readonly random: Random;
  readonly sleep: (ms: number) => Promise<void>;
  /** Objects a list page asks for at most (default 500). */
  readonly pageSize?: number;
  /** Bytes a list page is read up to at most (default list-page.ts's PAGE_BYTES, 4 MiB). */
  readonly pageBytes?: number;
  /** Seconds a watch asks the server to keep it open (the server ends it then; we re-watch). */
  readonly watchTimeoutSeconds?: number;
  /**
   * Resume: watch from this resourceVersion (one stored earlier) without listing first. If the
   * server no longer has it (410 Gone), the cache relists. Until a list has completed the cache is
   * not synced.
   */
  readonly initialResourceVersion?: string;
  readonly onEvent?: (event: InformerEvent, object: KubeObject) => void;
  /** Watch one namespace only (default: all). */
  readonly namespace?: string;
  /** A field selector, e.g. `metadata.name=bylaw-tls` (RBAC can then grant list/watch by resourceNames). */
  readonly fieldSelector?: string;
  /** A label selector, e.g. `cleanup.kyverno.io/ttl` (only objects carrying the label are listed and watched). */
  readonly labelSelector?: string;
  /** After each full list has replaced the store (the first sync, and every relist after 410 Gone): no event is sent per object then. */
  readonly onListed?: () => void;
  /**
   * What is stored of each object, e.g. only what its reader decides with; its JSON is what the
   * budget is charged. It is given the object with its managedFields (who wrote what) and without
   * kind and apiVersion. Default: the object without managedFields.
   */
  readonly compact?: (object: KubeObject) => KubeObject;
  /**
   * List and watch the objects' metadata only (PartialObjectMetadata, as client-go's metadata
   * informers): for a reader that decides with metadata alone, the rest is neither sent nor parsed.
   */
  readonly metadataOnly?: boolean;
  readonly onLog?: (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;
}

type Health = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export class Informer {
  private readonly objects = new Map<string, KubeObject>();
  private readonly byNamespace = new Map<string, Set<string>>();
  private budget: CacheBudget;
  /** Namespaces over their share of the pool: their objects' sizes (the objects are not held). */
  private overNamespaces = new Map<string, Map<string, number>>();
  /** The old store was dropped during a relist (both would not fit): reads are errors until it ends. */
  private relisting = false;
  /** A relist is due (a namespace's objects fit again, or a watch event was over the bound). */
  private relistWanted = false;
  private readonly backoff: Backoff;
  private rv = "";
  private listKind = "List";
  private listApiVersion = "v1";
  private stopped = false;
  private watch: WatchStream | undefined;
  private syncedOnce = false;
  private failure: string | undefined;
  /** The HTTP status of that failure (0: no answer). */
  private failureStatus = 0;
  private overBudget: string | undefined;
  private readonly syncWaiters: (() => void)[] = [];
  /** Counters a test or metric reads: lists done, watches opened, 410s seen, bookmarks seen. */
  readonly counts = { lists: 0, watches: 0, gone: 0, bookmarks: 0 };
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: InformerOptions) {
    this.budget = new CacheBudget(options.budgetBytes, options.pool);
    this.backoff = new Backoff({ baseMs: 500, maxMs: 30_000, random: options.random });
    this.rv = options.initialResourceVersion ?? "";
  }

  get name(): string {
    return gvrKey(this.options.gvr);
  }

  /** The last resourceVersion seen (a list, an event or a bookmark). */
  get resourceVersion(): string {
    return this.rv;
  }

  start(): void {
    void this.loop();
  }

  stop(): void {
    this.stopped = true;
    this.watch?.close();
  }

  /** Resolves once the first list has been stored (or the cache went over budget). */
  synced(): Promise<void> {
    if (this.syncedOnce || this.overBudget !== undefined) return Promise.resolve();
    return new Promise((r) => this.syncWaiters.push(r));
  }

  /** Why the last list or watch failed, while it has not since succeeded (e.g. forbidden, no such resource). */
  get lastFailure(): string | undefined {
    return this.failure;
  }

  /**
   * The API server's answer to the last failed list, when it refused it outright and has not since
   * listed: 403 (Bylaw may not list it) or 404 (no such resource). Undefined otherwise.
   */
  get refusedStatus(): 403 | 404 | undefined {
    if (this.failure === undefined) return undefined;
    return this.failureStatus === 403 || this.failureStatus === 404 ? this.failureStatus : undefined;
  }

  /**
   * Whether reads can be answered: of one namespace (`""` for cluster-scoped objects), or of every
   * namespace when `namespace` is undefined (a namespace over its share makes those errors too:
   * never a partial answer).
   */
  health(namespace?: string): Health {
    if (this.overBudget !== undefined) return { ok: false, reason: this.overBudget };
    if (!this.syncedOnce)
      return {
        ok: false,
        reason: `the ${this.name} cache has not synced yet${this.failure !== undefined ? ` (${this.failure})` : ""}`,
      };
    if (this.relisting)
      return {
        ok: false,
        reason: `the ${this.name} cache is being listed again (the old and the new list would not both fit its memory budget)`,
      };
    const over =
      namespace === undefined ? [...this.overNamespaces.keys()] : this.overNamespaces.has(namespace) ? [namespace] : [];
    if (over.length === 0) return { ok: true };
    const share = this.budget.limits.namespaceBytes ?? 0;
    return {
      ok: false,
      reason: `the ${this.name} objects of namespace ${over.slice(0, 3).join(", ")}${over.length > 3 ? ` and ${over.length - 3} more` : ""} need more than the live-context cache memory one namespace may take (${mib(share)}); they are not held, so reads of ${over.length === 1 ? "that namespace" : "those namespaces"} are errors until objects there are deleted or made smaller`,
    };
  }

  get(namespace: string, name: string): KubeObject | undefined {
    return this.objects.get(`${namespace}/${name}`);
  }

  /** Objects in one namespace (the namespace index), or all when `namespace` is undefined. */
  list(namespace?: string): KubeObject[] {
    if (namespace === undefined) return [...this.objects.values()];
    const keys = this.byNamespace.get(namespace);
    return keys === undefined ? [] : [...keys].map((k) => this.objects.get(k) as KubeObject);
  }

  /**
   * The cache's objects (one namespace, or all) as the API server answers a LIST: `{kind: "PodList",
   * apiVersion, metadata: {resourceVersion}, items}`.
   */
  listResponse(namespace?: string): KubeObject {
    return {
      kind: this.listKind,
      apiVersion: this.listApiVersion,
      metadata: { resourceVersion: this.rv },
      items: this.list(namespace),
    };
  }

  /** One object as a GET answers it (with kind and apiVersion). */
  objectResponse(namespace: string, name: string): KubeObject | undefined {
    const obj = this.get(namespace, name);
    if (obj === undefined) return undefined;
    return { kind: this.listKind.replace(/List$/, ""), apiVersion: this.listApiVersion, ...obj };
  }

  /** Calls `fn` after each change of the cache (a list that replaced it, a watch event); returns the unsubscribe. */
  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    for (const fn of this.listeners) fn();
  }

  get usedBytes(): number {
    return this.budget.usedBytes;
  }

  private log(level: "info" | "warn", message: string, fields: Record<string, unknown> = {}): void {
    this.options.onLog?.(level, message, { cache: this.name, ...fields });
  }

  private async loop(): Promise<void> {
    while (!this.stopped && this.overBudget === undefined) {
      try {
        if (this.rv === "" || this.relistWanted) await this.relist();
        if (this.stopped || this.overBudget !== undefined) return;
        await this.watchOnce();
        this.backoff.reset();
      } catch (e) {
        if (this.stopped) return;
        if (e instanceof KubeError && (e.status === 410 || e.reason === "Expired" || e.reason === "Gone")) {
          this.counts.gone++;
          this.log("info", "resourceVersion too old (410 Gone): relisting", { resourceVersion: this.rv });
          this.rv = "";
          continue;
        }
        if (e instanceof KubeError && e.reason === "TooLarge") {
          // A watch event over the per-event bound: which object it was is unknown, so list again
          // (in pages under the budget's cap, where an object too large for it is over budget).
          this.log("warn", "a watch event was over the per-event bound: relisting", { error: e.message });
          this.relistWanted = true;
          continue;
        }
        this.failure = (e as Error).message;
        this.failureStatus = e instanceof KubeError ? e.status : 0;
        const delay = this.backoff.next();
        this.log("warn", "list/watch failed; retrying", { error: this.failure, retryMs: delay });
        await this.options.sleep(delay);
      }
    }
  }

  private async relist(): Promise<void> {
    // Each page is read under what is left of the budget (the old store and the pages before it
    // charged), slimmed and charged as it arrives, under keys of their own until the list is
    // complete; a list too large for the budget stops before the whole of it is held.
    const fresh = new Map<string, KubeObject>();
    const dropped = new Map<string, Map<string, number>>();
    try {
      await this.listInto(fresh, dropped);
    } catch (e) {
      for (const key of fresh.keys()) this.budget.delete(FRESH + key);
      throw e;
    }
  }

  private async listInto(fresh: Map<string, KubeObject>, dropped: Map<string, Map<string, number>>): Promise<void> {
    let cont = "";
    let rv = "";
    let maxLimit = this.options.pageSize ?? 500;
    let limit = maxLimit;
    do {
      const page = await readPage(this.options.client, {
        path: gvrPath(this.options.gvr, this.options.namespace),
        limit,
        maxLimit,
        ...(this.options.pageBytes !== undefined ? { pageBytes: this.options.pageBytes } : {}),
        continueToken: cont,
        ...(this.options.fieldSelector !== undefined ? { fieldSelector: this.options.fieldSelector } : {}),
        ...(this.options.labelSelector !== undefined ? { labelSelector: this.options.labelSelector } : {}),
        ...(this.options.metadataOnly === true ? { metadataOnly: true } : {}),
        capBytes: () => this.budget.availableBytes,
        // A page that does not fit while the old store is held: drop the old store first.
        onTooLarge: () => (this.objects.size > 0 ? (this.dropStore(), true) : false),
      });
      if (page === "too-large") {
        this.goOverBudget(fresh.size + 1);
        return;
      }
      limit = page.limit;
      maxLimit = page.maxLimit;
      if (typeof page.kind === "string") this.listKind = page.kind;
      if (typeof page.apiVersion === "string") this.listApiVersion = page.apiVersion;
      for (const item of page.items) if (!this.holdFresh(fresh, dropped, this.slim(item, false))) return;
      cont = page.continueToken;
      rv = page.resourceVersion ?? rv;
    } while (cont !== "" && !this.stopped);
    this.counts.lists++;
    // Replace the store with the list (objects deleted while we were away are gone from it).
    this.dropStore();
    for (const [key, obj] of fresh) {
      const size = this.budget.sizeOf(FRESH + key) ?? 0;
      this.budget.delete(FRESH + key);
      this.budget.charge(key, obj.metadata?.namespace ?? "", size);
      this.index(key, obj);
    }
    this.overNamespaces = dropped;
    this.relisting = false;
    this.relistWanted = false;
    this.rv = rv;
    this.failure = undefined;
    if (!this.syncedOnce) {
      this.syncedOnce = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
    this.options.onListed?.();
    this.changed();
  }

  /** Charges one listed object under its fresh key; false when the cache went over budget. */
  private holdFresh(
    fresh: Map<string, KubeObject>,
    dropped: Map<string, Map<string, number>>,
    obj: KubeObject,
  ): boolean {
    const key = keyOf(obj);
    const ns = obj.metadata?.namespace ?? "";
    const size = JSON.stringify(obj).length;
    const over = dropped.get(ns);
    if (over !== undefined) {
      over.set(key, size);
      return true;
    }
    let charged = this.budget.charge(FRESH + key, ns, size);
    if (charged !== "ok" && this.objects.size > 0) {
      // The old store and the new list do not both fit: the old one goes first.
      this.dropStore();
      charged = this.budget.status(ns);
    }
    if (charged === "namespace") {
      const sizes = new Map<string, number>();
      for (const [k, o] of fresh) {
        if ((o.metadata?.namespace ?? "") !== ns) continue;
        sizes.set(k, this.budget.sizeOf(FRESH + k) ?? 0);
        this.budget.delete(FRESH + k);
        fresh.delete(k);
      }
      sizes.set(key, size);
      this.budget.delete(FRESH + key);
      dropped.set(ns, sizes);
      this.logNamespaceOver(ns);
      return true;
    }
    if (charged === "over") {
      this.goOverBudget(fresh.size + 1);
      return false;
    }
    fresh.set(key, obj);
    return true;
  }

  /** Empties the store (a relist's old copy): reads are errors until the relist ends. */
  private dropStore(): void {
    for (const key of this.objects.keys()) this.budget.delete(key);
    this.objects.clear();
    this.byNamespace.clear();
    this.relisting = this.syncedOnce;
  }

  private watchOnce(): Promise<void> {
    const q = new URLSearchParams({
      watch: "1",
      allowWatchBookmarks: "true",
      resourceVersion: this.rv,
      timeoutSeconds: String(this.options.watchTimeoutSeconds ?? 300),
    });
    this.counts.watches++;
    let gone: KubeError | undefined;
    if (this.options.fieldSelector !== undefined) q.set("fieldSelector", this.options.fieldSelector);
    if (this.options.labelSelector !== undefined) q.set("labelSelector", this.options.labelSelector);
    const stream = this.options.client.watch(
      `${gvrPath(this.options.gvr, this.options.namespace)}?${q.toString()}`,
      (raw) => {
        const ev = raw as { type?: string; object?: KubeObject & { code?: number; reason?: string; message?: string } };
        const obj = ev.object;
        if (obj === undefined || this.overBudget !== undefined || this.relistWanted) return;
        if (ev.type === "ERROR") {
          gone = new KubeError(
            typeof obj.message === "string" ? obj.message : "watch error",
            typeof obj.code === "number" ? obj.code : 0,
            typeof obj.reason === "string" ? obj.reason : undefined,
          );
          stream.close();
          return;
        }
        const rv = obj.metadata?.resourceVersion;
        if (typeof rv === "string" && rv !== "") this.rv = rv;
        if (ev.type === "BOOKMARK") {
          this.counts.bookmarks++;
          return;
        }
        if (!this.apply(ev.type, obj)) stream.close();
      },
      WATCH_EVENT_BYTES,
      this.options.metadataOnly === true ? { metadataOnly: true } : {},
    );
    this.watch = stream;
    return stream.done.then(() => {
      if (gone !== undefined) throw gone;
    });
  }

  /** One ADDED/MODIFIED/DELETED event; false when the watch must end (over budget, or a relist is due). */
  private apply(type: string | undefined, obj: KubeObject): boolean {
    const key = keyOf(obj);
    if (type === "DELETED") {
      this.remove(key);
      this.options.onEvent?.("deleted", obj);
      this.changed();
    } else if (type === "ADDED" || type === "MODIFIED") {
      const slim = this.slim(obj, true);
      if (!this.store(key, slim, JSON.stringify(slim).length)) return false;
      this.options.onEvent?.(type === "ADDED" ? "added" : "modified", obj);
      this.changed();
    }
    return !this.relistWanted;
  }

  /** What is stored of an object: as `compact` keeps it, else without managedFields. */
  private slim(obj: KubeObject, fromWatch: boolean): KubeObject {
    const compact = this.options.compact;
    if (compact === undefined) return withoutManagedFields(obj, fromWatch);
    const rest: Record<string, unknown> = { ...obj };
    delete rest["kind"];
    delete rest["apiVersion"];
    return compact(rest as KubeObject);
  }

  /** Stores an object (already slimmed, `size` its JSON length); false when it does not fit (the cache is then over budget). */
  private store(key: string, slim: KubeObject, size: number): boolean {
    const ns = slim.metadata?.namespace ?? "";
    const over = this.overNamespaces.get(ns);
    if (over !== undefined) {
      over.set(key, size);
      this.relistIfFits(ns);
      return true;
    }
    const charged = this.budget.charge(key, ns, size);
    if (charged === "namespace") {
      this.dropNamespace(ns, key);
      return true;
    }
    if (charged === "over") {
      this.goOverBudget(this.objects.size + 1);
      return false;
    }
    this.index(key, slim);
    return true;
  }

  private index(key: string, obj: KubeObject): void {
    this.objects.set(key, obj);
    const ns = obj.metadata?.namespace ?? "";
    let set = this.byNamespace.get(ns);
    if (set === undefined) this.byNamespace.set(ns, (set = new Set()));
    set.add(key);
  }

  /** A namespace over its share (`key` was just charged to it): its objects leave the store, their sizes are kept (to know when they fit again). */
  private dropNamespace(ns: string, key: string): void {
    const sizes = new Map<string, number>([[key, this.budget.sizeOf(key) ?? 0]]);
    this.budget.delete(key);
    for (const k of [...(this.byNamespace.get(ns) ?? [])]) {
      sizes.set(k, this.budget.sizeOf(k) ?? sizes.get(k) ?? 0);
      this.remove(k);
    }
    this.overNamespaces.set(ns, sizes);
    this.logNamespaceOver(ns);
    this.changed();
  }

  private logNamespaceOver(ns: string): void {
    this.log("warn", "a namespace's objects are over its share of the cache memory: not held, its reads are errors", {
      namespace: ns,
      namespaceShareBytes: this.budget.limits.namespaceBytes,
    });
  }

  /** Relists when an over namespace's objects fit its share again. */
  private relistIfFits(ns: string): void {
    const sizes = this.overNamespaces.get(ns);
    if (sizes === undefined) return;
    let total = 0;
    for (const n of sizes.values()) total += n;
    if (total <= this.budget.namespaceAvailable(ns)) this.relistWanted = true;
  }

  /** Over budget: the cache empties, stops watching, and reports unhealthy with the reason. */
  private goOverBudget(objects: number): void {
    const l = this.budget.limits;
    const pool =
      l.totalBytes !== undefined && l.totalBytes < l.cacheBytes
        ? ` (all live-context caches together: ${mib(l.totalBytes)})`
        : "";
    this.overBudget = `the ${this.name} cache needs more than its memory budget of ${mib(Math.min(l.cacheBytes, l.totalBytes ?? Infinity))}${pool} (${objects} objects); raise the budget for it or narrow what the policies read`;
    this.log("warn", "cache over its memory budget: dropped, reads are errors", {
      budgetBytes: this.budget.limitBytes,
    });
    this.objects.clear();
    this.byNamespace.clear();
    this.budget.clear();
    this.overNamespaces.clear();
    this.stopped = true;
    this.watch?.close();
    for (const w of this.syncWaiters.splice(0)) w();
  }

  private remove(key: string): void {
    const ns = key.slice(0, key.indexOf("/"));
    const over = this.overNamespaces.get(ns);
    if (over !== undefined) {
      over.delete(key);
      if (over.size === 0) {
        this.overNamespaces.delete(ns);
        this.changed();
      } else this.relistIfFits(ns);
      return;
    }
    const old = this.objects.get(key);
    this.budget.delete(key);
    if (old === undefined) return;
    this.objects.delete(key);
    const set = this.byNamespace.get(ns);
    set?.delete(key);
    if (set !== undefined && set.size === 0) this.byNamespace.delete(ns);
  }
}

/** The prefix of a listed object's budget key until its list is complete. */
const FRESH = "\0fresh\0";

/** The largest watch event read (an object the API server stores is at most about 3 MiB). */
const WATCH_EVENT_BYTES = 8 * 1024 * 1024;

function keyOf(obj: KubeObject): string {
  return `${obj.metadata?.namespace ?? ""}/${obj.metadata?.name ?? ""}`;
}

/**
 * The object without metadata.managedFields (the bulk of most objects, read by no policy here).
 * Objects from a watch carry kind and apiVersion; a list's items do not: both are stored as a list gives them.
 */
function withoutManagedFields(obj: KubeObject, fromWatch: boolean): KubeObject {
  const out: Record<string, unknown> = { ...obj };
  if (fromWatch) {
    delete out["kind"];
    delete out["apiVersion"];
  }
  const meta = obj.metadata as Record<string, unknown> | undefined;
  if (meta !== undefined && "managedFields" in meta) {
    const m = { ...meta };
    delete m["managedFields"];
    out["metadata"] = m;
  }
  return out as KubeObject;
}
