/**
 * A list-then-watch cache of one resource type (client-go's reflector and store, kept small):
 * - LIST in pages (`limit`/`continue`), then WATCH from the list's resourceVersion with
 *   `allowWatchBookmarks`; each event moves the resourceVersion on, bookmarks included, so a
 *   re-watch resumes where the last one ended;
 * - a watch or list that fails is retried after a jittered exponential backoff; 410 Gone (the
 *   resourceVersion was compacted), as a status or an ERROR event, relists from scratch;
 * - objects are kept by `namespace/name` with a namespace index, without managedFields;
 * - a memory budget (cache-budget.ts): over it the cache drops its objects, stops, and reports
 *   unhealthy with the reason, so rules that read it are errors.
 * Clock and randomness are injected (`sleep`, `random`).
 */
import type { Random } from "../engine/index.js";
import { Backoff } from "./backoff.js";
import { CacheBudget, mib } from "./cache-budget.js";
import { KubeError, type KubeClient, type WatchStream } from "./kube-client.js";
import { gvrKey, gvrPath, type Gvr, type KubeObject } from "./types.js";

export type InformerEvent = "added" | "modified" | "deleted";

interface InformerOptions {
  readonly client: KubeClient;
  readonly gvr: Gvr;
  /** Bytes of object JSON the cache may hold. */
  readonly budgetBytes: number;
  readonly random: Random;
  readonly sleep: (ms: number) => Promise<void>;
  readonly pageSize?: number;
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
  /** After each full list has replaced the store (the first sync, and every relist after 410 Gone): no event is sent per object then. */
  readonly onListed?: () => void;
  readonly onLog?: (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;
}

type Health = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export class Informer {
  private readonly objects = new Map<string, KubeObject>();
  private readonly byNamespace = new Map<string, Set<string>>();
  private readonly budget: CacheBudget;
  private readonly backoff: Backoff;
  private rv = "";
  private listKind = "List";
  private listApiVersion = "v1";
  private stopped = false;
  private watch: WatchStream | undefined;
  private syncedOnce = false;
  private failure: string | undefined;
  private overBudget: string | undefined;
  private readonly syncWaiters: (() => void)[] = [];
  /** Counters a test or metric reads: lists done, watches opened, 410s seen, bookmarks seen. */
  readonly counts = { lists: 0, watches: 0, gone: 0, bookmarks: 0 };
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: InformerOptions) {
    this.budget = new CacheBudget(options.budgetBytes);
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

  health(): Health {
    if (this.overBudget !== undefined) return { ok: false, reason: this.overBudget };
    if (!this.syncedOnce)
      return {
        ok: false,
        reason: `the ${this.name} cache has not synced yet${this.failure !== undefined ? ` (${this.failure})` : ""}`,
      };
    return { ok: true };
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
        if (this.rv === "") await this.relist();
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
        this.failure = (e as Error).message;
        const delay = this.backoff.next();
        this.log("warn", "list/watch failed; retrying", { error: this.failure, retryMs: delay });
        await this.options.sleep(delay);
      }
    }
  }

  private async relist(): Promise<void> {
    // Each page is slimmed and measured as it arrives, so a list too large for the budget stops
    // before the whole of it is held.
    const fresh = new Map<string, { readonly obj: KubeObject; readonly size: number }>();
    let total = 0;
    let cont = "";
    let rv = "";
    do {
      const q = new URLSearchParams({ limit: String(this.options.pageSize ?? 500) });
      if (cont !== "") q.set("continue", cont);
      if (this.options.fieldSelector !== undefined) q.set("fieldSelector", this.options.fieldSelector);
      const page = (await this.options.client.getJson(
        `${gvrPath(this.options.gvr, this.options.namespace)}?${q.toString()}`,
      )) as {
        kind?: unknown;
        apiVersion?: unknown;
        metadata?: { resourceVersion?: string; continue?: string };
        items?: KubeObject[];
      };
      if (typeof page.kind === "string") this.listKind = page.kind;
      if (typeof page.apiVersion === "string") this.listApiVersion = page.apiVersion;
      for (const item of page.items ?? []) {
        const obj = withoutManagedFields(item, false);
        const size = JSON.stringify(obj).length;
        const key = keyOf(obj);
        total += size - (fresh.get(key)?.size ?? 0);
        fresh.set(key, { obj, size });
      }
      if (total > this.budget.limitBytes) {
        this.goOverBudget(fresh.size);
        return;
      }
      cont = page.metadata?.continue ?? "";
      rv = page.metadata?.resourceVersion ?? rv;
    } while (cont !== "" && !this.stopped);
    this.counts.lists++;
    // Replace the store with the list (objects deleted while we were away are gone from it).
    this.objects.clear();
    this.byNamespace.clear();
    this.budget.clear();
    for (const [key, { obj, size }] of fresh) if (!this.store(key, obj, size)) return;
    this.rv = rv;
    this.failure = undefined;
    if (!this.syncedOnce) {
      this.syncedOnce = true;
      for (const w of this.syncWaiters.splice(0)) w();
    }
    this.options.onListed?.();
    this.changed();
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
    const stream = this.options.client.watch(
      `${gvrPath(this.options.gvr, this.options.namespace)}?${q.toString()}`,
      (raw) => {
        const ev = raw as { type?: string; object?: KubeObject & { code?: number; reason?: string; message?: string } };
        const obj = ev.object;
        if (obj === undefined || this.overBudget !== undefined) return;
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
        const key = keyOf(obj);
        if (ev.type === "DELETED") {
          this.remove(key);
          this.options.onEvent?.("deleted", obj);
          this.changed();
        } else if (ev.type === "ADDED" || ev.type === "MODIFIED") {
          const slim = withoutManagedFields(obj, true);
          if (this.store(key, slim, JSON.stringify(slim).length)) {
            this.options.onEvent?.(ev.type === "ADDED" ? "added" : "modified", obj);
            this.changed();
          } else stream.close();
        }
      },
    );
    this.watch = stream;
    return stream.done.then(() => {
      if (gone !== undefined) throw gone;
    });
  }

  /** Stores an object (already slimmed, `size` its JSON length); false when it does not fit (the cache is then over budget). */
  private store(key: string, slim: KubeObject, size: number): boolean {
    if (!this.budget.set(key, size)) {
      this.goOverBudget(this.objects.size + 1);
      return false;
    }
    this.objects.set(key, slim);
    const ns = slim.metadata?.namespace ?? "";
    let set = this.byNamespace.get(ns);
    if (set === undefined) this.byNamespace.set(ns, (set = new Set()));
    set.add(key);
    return true;
  }

  /** Over budget: the cache empties, stops watching, and reports unhealthy with the reason. */
  private goOverBudget(objects: number): void {
    this.overBudget = `the ${this.name} cache needs more than its memory budget of ${mib(this.budget.limitBytes)} (${objects} objects); raise the budget for it or narrow what the policies read`;
    this.log("warn", "cache over its memory budget: dropped, reads are errors", {
      budgetBytes: this.budget.limitBytes,
    });
    this.objects.clear();
    this.byNamespace.clear();
    this.budget.clear();
    this.stopped = true;
    this.watch?.close();
    for (const w of this.syncWaiters.splice(0)) w();
  }

  private remove(key: string): void {
    const old = this.objects.get(key);
    if (old === undefined) return;
    this.objects.delete(key);
    this.budget.delete(key);
    const ns = old.metadata?.namespace ?? "";
    const set = this.byNamespace.get(ns);
    set?.delete(key);
    if (set !== undefined && set.size === 0) this.byNamespace.delete(ns);
  }
}

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
