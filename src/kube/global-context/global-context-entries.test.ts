/**
 * The GlobalContextEntries store without a server: fakes stand for the shared informers and the
 * client. Checked: entries follow the informer (added, changed, deleted), `<entry>.<projection>`
 * reads, Kyverno's texts, and status written by the leader only, once per change.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../engine/index.js";
import { EgressPolicy } from "../egress/egress-policy.js";
import type { Informer } from "../informer.js";
import type { KubeClient } from "../kube-client.js";
import type { LiveCluster } from "../live-cluster.js";
import type { KubeObject } from "../types.js";
import { GlobalContextEntries } from "./global-context-entries.js";

class FakeInformer {
  objects: KubeObject[] = [];
  rv = 1;
  private listeners: (() => void)[] = [];
  readonly name = "fake";
  get resourceVersion(): string {
    return String(this.rv);
  }
  onChange(fn: () => void): () => void {
    this.listeners.push(fn);
    return () => undefined;
  }
  set(objects: KubeObject[]): void {
    this.objects = objects;
    this.rv++;
    for (const l of this.listeners) l();
  }
  list(): KubeObject[] {
    return this.objects;
  }
  health(): { ok: true } {
    return { ok: true };
  }
  synced(): Promise<void> {
    return Promise.resolve();
  }
  stop(): void {}
}

function setUp(leader: { value: boolean }) {
  const gces = new FakeInformer();
  const pods = new FakeInformer();
  const cluster = {
    informer: (gvr: { resource: string }) =>
      (gvr.resource === "globalcontextentries" ? gces : pods) as unknown as Informer,
    ownInformer: (gvr: { resource: string }) =>
      (gvr.resource === "globalcontextentries" ? gces : pods) as unknown as Informer,
    isSynced: () => true,
    ready: () => Promise.resolve(),
  } as unknown as LiveCluster;
  const patches: [string, unknown][] = [];
  const client = {
    sendJson: async (_m: string, path: string, body: unknown) => (patches.push([path, body]), {}),
  } as unknown as KubeClient;
  const policy = EgressPolicy.create();
  assert.ok(policy.ok);
  const compile = () => (expr: string) => (data: JsonValue) =>
    expr === "[].metadata.name" ? (data as KubeObject[]).map((o) => o.metadata?.name ?? "") : null;
  const store = new GlobalContextEntries({
    cluster,
    client,
    egress: { policy: policy.value },
    compile,
    isLeader: () => leader.value,
    now: () => Date.UTC(2026, 10, 25),
  });
  return { store, gces, pods, patches };
}

const entry = (name: string, spec: JsonValue, generation = 1): KubeObject =>
  ({ metadata: { name, generation }, spec }) as unknown as KubeObject;
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test("entries follow the informer; projections and Kyverno's texts; status by the leader, once per change", async () => {
  const leader = { value: false };
  const { store, gces, pods, patches } = setUp(leader);
  assert.match(JSON.stringify(store.read("pods")), /once a loaded policy reads a globalReference/);
  store.start();
  pods.set([{ metadata: { name: "a", namespace: "x" } }, { metadata: { name: "b", namespace: "x" } }]);
  gces.set([
    entry("pods", {
      kubernetesResource: { version: "v1", resource: "pods" },
      projections: [{ name: "names", jmesPath: "[].metadata.name" }],
    }),
  ]);
  await tick();
  assert.deepEqual(store.read("pods.names"), { ok: true, value: ["a", "b"] });
  assert.equal((store.read("pods") as { value: unknown[] }).value.length, 2);
  const unknown = store.read("nope");
  assert.equal(unknown.ok ? "" : unknown.error.message, "failed to fetch entry key=nope");
  const empty = store.read("pods.missing");
  assert.equal(empty.ok ? "" : empty.error.message, "no data available");
  assert.equal(patches.length, 0, "not the leader: no status written");

  leader.value = true;
  gces.set([entry("pods", { kubernetesResource: { version: "v1", resource: "pods", namespace: "x" } }, 2)]);
  await tick();
  assert.equal(patches.length, 1);
  const [path, body] = patches[0] as [
    string,
    {
      status: {
        conditions: { type: string; status: string; reason: string; message: string; observedGeneration: number }[];
      };
    },
  ];
  assert.equal(path, "/apis/kyverno.io/v2alpha1/globalcontextentries/pods/status");
  const c = body.status.conditions[0];
  assert.deepEqual(
    [c?.type, c?.status, c?.reason, c?.message, c?.observedGeneration],
    ["Ready", "True", "Succeeded", "CacheSyncSuccess", 2],
  );
  gces.set([...gces.objects]);
  await tick();
  assert.equal(patches.length, 1, "an unchanged entry is not written again");

  gces.set([entry("bad", { apiCall: { urlPath: "/api/v1/pods", refreshInterval: "soon" } })]);
  await tick();
  const bad = store.read("bad");
  assert.match(bad.ok ? "" : bad.error.message, /global context entry bad is invalid: invalid duration "soon"/);
  assert.equal(store.read("pods").ok, false, "a deleted entry is gone");
  const last = patches[patches.length - 1] as [string, { status: { conditions: { reason: string }[] } }];
  assert.equal(last[0], "/apis/kyverno.io/v2alpha1/globalcontextentries/bad/status");
  assert.equal(last[1].status.conditions[0]?.reason, "Failed");
  store.close();
});

test("entries the loader's cache already holds when it starts are loaded at once, not at the next change", async () => {
  const { store, gces, pods } = setUp({ value: false });
  pods.set([{ metadata: { name: "a", namespace: "x" } }]);
  // The cache has listed (and sent its change) before the loader subscribed: no change follows.
  gces.set([entry("pods", { kubernetesResource: { version: "v1", resource: "pods" } })]);
  store.start();
  await tick();
  assert.equal((store.read("pods") as { value: unknown[] }).value.length, 1);
});

test("an entry's status writes land in order: a slow Failed write never overtakes the Ready that follows it", async () => {
  const gces = new FakeInformer();
  const cluster = {
    informer: () => gces as unknown as Informer,
    ownInformer: () => gces as unknown as Informer,
    isSynced: () => true,
    ready: () => Promise.resolve(),
  } as unknown as LiveCluster;
  const events: string[] = [];
  let first = true;
  const client = {
    sendJson: async (_m: string, _path: string, body: { status: { conditions: { reason: string }[] } }) => {
      const reason = body.status.conditions[0]?.reason ?? "";
      events.push(`start ${reason}`);
      // The first write (Failed) answers late; without ordering the Ready write would finish before it.
      if (first) {
        first = false;
        await new Promise((r) => setTimeout(r, 30));
      }
      events.push(`end ${reason}`);
      return {};
    },
  } as unknown as KubeClient;
  const policy = EgressPolicy.create();
  assert.ok(policy.ok);
  const store = new GlobalContextEntries({
    cluster,
    client,
    egress: { policy: policy.value },
    compile: () => () => () => null,
    now: () => Date.UTC(2026, 10, 29),
  });
  store.start();
  gces.set([entry("e", { apiCall: { urlPath: "/api/v1/pods", refreshInterval: "soon" } })]);
  await tick();
  gces.set([entry("e", { kubernetesResource: { version: "v1", resource: "pods" } }, 2)]);
  await new Promise((r) => setTimeout(r, 60));
  assert.deepEqual(events, ["start Failed", "end Failed", "start Succeeded", "end Succeeded"]);
  store.close();
});

test("a resource entry whose cache has not listed yet is pending (no status), not Failed", async () => {
  const { store, gces } = setUp({ value: true });
  const patches: unknown[] = [];
  const unsynced = new GlobalContextEntries({
    cluster: {
      informer: () =>
        ({
          name: "pods",
          resourceVersion: "1",
          onChange: () => () => undefined,
          list: () => [],
          health: () => ({ ok: false, reason: "not synced" }),
          synced: () => new Promise<void>(() => undefined),
          stop: () => undefined,
        }) as unknown as Informer,
      ownInformer: () => gces as unknown as Informer,
      isSynced: () => false,
      ready: () => Promise.resolve(),
    } as unknown as LiveCluster,
    client: { sendJson: async (_m: string, _p: string, b: unknown) => (patches.push(b), {}) } as unknown as KubeClient,
    egress: { policy: (EgressPolicy.create() as { value: EgressPolicy }).value },
    compile: () => () => () => null,
  });
  store.close();
  unsynced.start();
  gces.set([entry("pods", { kubernetesResource: { version: "v1", resource: "pods" } })]);
  await tick();
  assert.deepEqual(patches, [], "nothing written while the cache has not listed");
  unsynced.close();
});
