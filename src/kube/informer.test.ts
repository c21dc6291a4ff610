/**
 * The informer's memory bounds without an API server (issue 32 §5): a fake client answers LIST
 * pages and refuses a body over the cap it is given, as kube-client.ts does; watch events are
 * pushed by the test. Checked: pages are read under what is left of the budget, a namespace over
 * its share of the pool is not held and only its reads are errors, it is held again once it fits,
 * a relist never holds two copies past the budget, and a watch event over the bound relists.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CachePool } from "./cache-budget.js";
import { Informer } from "./informer.js";
import { KubeError } from "./kube-client.js";
import type { KubeObject } from "./types.js";

const CONFIGMAPS = { group: "", version: "v1", resource: "configmaps" };

function cm(namespace: string, name: string, bytes: number): KubeObject {
  return { metadata: { namespace, name, resourceVersion: "1" }, data: { v: "x".repeat(bytes) } };
}

class FakeApi {
  readonly objects = new Map<string, KubeObject>();
  /** The cap of every page asked for, and its limit. */
  readonly asked: { cap: number | undefined; limit: number }[] = [];
  /** Whether each list page and each watch asked for metadata only. */
  readonly metadataOnly: { list: boolean[]; watch: boolean[] } = { list: [], watch: [] };
  private emit: ((e: unknown) => void) | undefined;
  private end: ((e?: Error) => void) | undefined;

  put(...objs: KubeObject[]): void {
    for (const o of objs) this.objects.set(`${o.metadata?.namespace}/${o.metadata?.name}`, o);
  }

  getJson(
    path: string,
    read: { readonly maxBodyBytes?: number; readonly metadataOnly?: boolean } = {},
  ): Promise<unknown> {
    const q = new URL(`https://x${path}`).searchParams;
    const limit = Number(q.get("limit"));
    const from = Number(q.get("continue") ?? "0");
    this.asked.push({ cap: read.maxBodyBytes, limit });
    this.metadataOnly.list.push(read.metadataOnly === true);
    // As the API server answers a metadata-only list: PartialObjectMetadata items.
    const all = [...this.objects.values()].map((o) =>
      read.metadataOnly === true
        ? { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: o.metadata }
        : o,
    );
    const items = all.slice(from, from + limit);
    const next = from + limit < all.length ? String(from + limit) : "";
    const body = JSON.stringify({
      kind: "ConfigMapList",
      apiVersion: "v1",
      metadata: { resourceVersion: "5", continue: next },
      items,
    });
    if (read.maxBodyBytes !== undefined && body.length > read.maxBodyBytes)
      return Promise.reject(new KubeError("too large", 0, "TooLarge"));
    return Promise.resolve(JSON.parse(body));
  }

  watch(
    _path: string,
    onEvent: (e: unknown) => void,
    _maxLineBytes?: number,
    read: { readonly metadataOnly?: boolean } = {},
  ): { close(): void; done: Promise<void> } {
    this.metadataOnly.watch.push(read.metadataOnly === true);
    this.emit = onEvent;
    const done = new Promise<void>((resolve, reject) => (this.end = (e) => (e === undefined ? resolve() : reject(e))));
    return { close: () => this.end?.(), done };
  }

  event(type: string, object: KubeObject): void {
    if (type === "DELETED") this.objects.delete(`${object.metadata?.namespace}/${object.metadata?.name}`);
    else this.put(object);
    this.emit?.({ type, object });
  }

  fail(e: Error): void {
    this.end?.(e);
  }

  get watching(): boolean {
    return this.emit !== undefined;
  }
}

function informer(api: FakeApi, budgetBytes: number, pool?: CachePool): Informer {
  return new Informer({
    client: api,
    gvr: CONFIGMAPS,
    budgetBytes,
    ...(pool !== undefined ? { pool } : {}),
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
    pageSize: 8,
  });
}

async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    assert.ok(Date.now() < deadline, `waited for: ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

test("a list larger than the budget is read in pages each capped by what is left, and stops: over budget, never held", async () => {
  const api = new FakeApi();
  for (let i = 0; i < 20; i++) api.put(cm("a", `big-${String(i).padStart(2, "0")}`, 10_000));
  const inf = informer(api, 50_000);
  inf.start();
  await inf.synced();
  const h = inf.health("a");
  assert.equal(h.ok, false);
  assert.match(h.ok ? "" : h.reason, /needs more than its memory budget of/);
  for (const a of api.asked) assert.ok(a.cap !== undefined && (a.cap <= 50_000 || a.limit === 1), JSON.stringify(a));
  assert.equal(inf.usedBytes, 0);
  assert.equal(inf.list().length, 0);
  inf.stop();
});

test("a namespace over its share of the pool is not held: its reads and all-namespace reads are errors, others are answered", async () => {
  const api = new FakeApi();
  const pool = new CachePool(1_000_000, 30_000);
  for (let i = 0; i < 6; i++) api.put(cm("tenant-a", `big-${i}`, 10_000));
  api.put(cm("kube-system", "settings", 100), cm("tenant-b", "small", 100));
  const inf = informer(api, 1_000_000, pool);
  inf.start();
  await inf.synced();
  const a = inf.health("tenant-a");
  assert.equal(a.ok, false);
  assert.match(
    a.ok ? "" : a.reason,
    /objects of namespace tenant-a need more than the live-context cache memory one namespace may take .*reads of that namespace are errors/,
  );
  assert.equal(inf.health().ok, false, "a list of every namespace would be partial");
  assert.equal(inf.health("kube-system").ok, true);
  assert.equal(inf.health("tenant-b").ok, true);
  assert.equal(inf.get("kube-system", "settings")?.metadata?.name, "settings");
  assert.equal(inf.list("tenant-a").length, 0, "not held");
  assert.ok(pool.namespaceUsed("tenant-a") === 0 && inf.usedBytes < 1000, `held ${inf.usedBytes} bytes`);

  // Deleting the tenant's objects until they fit: relisted, held, read again.
  await until("watching", () => api.watching);
  for (let i = 0; i < 4; i++) api.event("DELETED", cm("tenant-a", `big-${i}`, 0));
  await until("tenant-a held again", () => inf.health("tenant-a").ok);
  assert.equal(inf.list("tenant-a").length, 2);
  assert.equal(inf.health().ok, true);

  // A watch event that takes it over again drops it again; other namespaces are unaffected.
  await until("watching", () => api.watching);
  api.event("ADDED", cm("tenant-a", "big-again", 15_000));
  assert.equal(inf.health("tenant-a").ok, false);
  assert.equal(inf.health("tenant-b").ok, true);
  inf.stop();
});

test("a relist (410) holds the old store beside the new list only while both fit; else it drops the old one first", async () => {
  const api = new FakeApi();
  for (let i = 0; i < 6; i++) api.put(cm("shop", `c-${i}`, 10_000));
  const pool = new CachePool(80_000, 80_000);
  const inf = informer(api, 1_000_000, pool);
  inf.start();
  await inf.synced();
  assert.equal(inf.health().ok, true);
  await until("watching", () => api.watching);
  const listsBefore = inf.counts.lists;
  let peak = 0;
  const watchPeak = setInterval(() => (peak = Math.max(peak, pool.usedBytes)), 0);
  api.fail(new KubeError("too old", 410, "Expired"));
  await until("relisted", () => inf.counts.lists > listsBefore);
  clearInterval(watchPeak);
  assert.ok(pool.usedBytes <= 80_000 && peak <= 80_000, `pool used ${pool.usedBytes}, peak ${peak}`);
  assert.equal(inf.health().ok, true);
  assert.equal(inf.list().length, 6);
  inf.stop();
});

test("a watch event over the per-event bound relists instead of crashing; the cache stays right", async () => {
  const api = new FakeApi();
  api.put(cm("shop", "a", 100));
  const inf = informer(api, 1_000_000);
  inf.start();
  await inf.synced();
  await until("watching", () => api.watching);
  api.put(cm("shop", "b", 100));
  api.fail(new KubeError("watch: an event is larger than 8388608 bytes", 0, "TooLarge"));
  await until("relisted", () => inf.counts.lists === 2);
  assert.equal(inf.get("shop", "b")?.metadata?.name, "b");
  inf.stop();
});

test("with `compact`, what is stored (and charged to the budget) is the compact form, from a list and from a watch", async () => {
  const api = new FakeApi();
  api.put(cm("shop", "a", 5_000));
  const inf = new Informer({
    client: api,
    gvr: CONFIGMAPS,
    budgetBytes: 1_000_000,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
    compact: (o) => ({ metadata: o.metadata ?? {}, data: { size: String(JSON.stringify(o["data"]).length) } }),
  });
  inf.start();
  await inf.synced();
  await until("watching", () => api.watching);
  assert.deepEqual(inf.get("shop", "a")?.["data"], { size: "5008" });
  assert.ok(inf.usedBytes < 200, `charged ${inf.usedBytes} bytes`);
  api.event("ADDED", cm("shop", "b", 7_000));
  await until("the watched object is stored", () => inf.get("shop", "b") !== undefined);
  assert.deepEqual(inf.get("shop", "b")?.["data"], { size: "7008" });
  assert.ok(inf.usedBytes < 400, `charged ${inf.usedBytes} bytes`);
  inf.stop();
});

test("with `metadataOnly`, lists and watches ask for the objects' metadata only; `compact` sees who wrote them (managedFields), never kind or apiVersion", async () => {
  const api = new FakeApi();
  const withManagers = (o: KubeObject): KubeObject =>
    ({
      ...o,
      metadata: { ...o.metadata, managedFields: [{ manager: "bylaw", operation: "Update" }] },
    }) as KubeObject;
  api.put(withManagers(cm("shop", "a", 5_000)));
  const seen: KubeObject[] = [];
  const inf = new Informer({
    client: api,
    gvr: CONFIGMAPS,
    budgetBytes: 1_000_000,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
    metadataOnly: true,
    compact: (o) => {
      seen.push(o);
      return { metadata: { name: o.metadata?.name ?? "", namespace: o.metadata?.namespace ?? "" } };
    },
  });
  inf.start();
  await inf.synced();
  await until("watching", () => api.watching);
  api.event("ADDED", {
    kind: "PartialObjectMetadata",
    apiVersion: "meta.k8s.io/v1",
    ...withManagers(cm("shop", "b", 0)),
  });
  await until("the watched object is stored", () => inf.get("shop", "b") !== undefined);
  assert.deepEqual(api.metadataOnly, { list: [true], watch: [true] });
  assert.deepEqual(
    seen.map((o) => [
      o.metadata?.name,
      o["kind"],
      o["apiVersion"],
      (o.metadata as { managedFields?: unknown }).managedFields,
    ]),
    [
      ["a", undefined, undefined, [{ manager: "bylaw", operation: "Update" }]],
      ["b", undefined, undefined, [{ manager: "bylaw", operation: "Update" }]],
    ],
  );
  assert.equal(inf.get("shop", "a")?.["data"], undefined);
  inf.stop();
});

test("pages are read at most pageBytes at a time whatever the budget, and a size found too large is not asked again", async () => {
  const api = new FakeApi();
  for (let i = 0; i < 24; i++) api.put(cm("tenant-a", `big-${String(i).padStart(2, "0")}`, 10_000));
  const inf = new Informer({
    client: api,
    gvr: CONFIGMAPS,
    budgetBytes: 10_000_000,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => {}),
    pageSize: 16,
    pageBytes: 35_000,
  });
  inf.start();
  await inf.synced();
  assert.equal(inf.health().ok, true);
  assert.equal(inf.list().length, 24, "every object held: the budget is large");
  for (const a of api.asked) assert.ok(a.cap !== undefined && a.cap <= 35_000, JSON.stringify(a));
  // Pages of 16, 8 and 4 objects of 10 KB are over 35,000 bytes, 2 fit; the rest is asked 3 at a
  // time (under the 4 that did not fit), never 4 again.
  const limits = api.asked.map((a) => a.limit);
  assert.deepEqual(limits.slice(0, 4), [16, 8, 4, 2]);
  assert.ok(
    limits.slice(4).every((l) => l === 3),
    `limits after the first page: ${limits.join(", ")}`,
  );
  inf.stop();
});
