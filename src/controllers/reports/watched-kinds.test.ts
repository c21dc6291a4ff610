/**
 * WatchedKinds.version, which lets the reports controller skip a pass while nothing it scans
 * changed (start.ts): it moves when the watched kinds change and on every change of a watched
 * kind's cache (its list, each watch event), and stays put otherwise.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubeClient } from "../../kube/kube-client.js";
import { CORE_DISCOVERY } from "../../../test/support/fake-kube-client.js";
import { WatchedKinds } from "./watched-kinds.js";

/** Discovery, one ConfigMap listed, and a watch whose events the test pushes. */
function fakeClient(): { client: KubeClient; push: (event: unknown) => void; watching: () => boolean } {
  let emit: ((event: unknown) => void) | undefined;
  const client = {
    getJson: (path: string): Promise<unknown> => {
      const discovery = CORE_DISCOVERY[path];
      if (discovery !== undefined) return Promise.resolve(discovery);
      return Promise.resolve({
        kind: "ConfigMapList",
        apiVersion: "v1",
        metadata: { resourceVersion: "5", continue: "" },
        items: [{ metadata: { namespace: "a", name: "one", uid: "u1", resourceVersion: "4" } }],
      });
    },
    watch: (_path: string, onEvent: (event: unknown) => void) => {
      emit = onEvent;
      return { close: () => undefined, done: new Promise<void>(() => undefined) };
    },
  } as unknown as KubeClient;
  return { client, push: (event) => emit?.(event), watching: () => emit !== undefined };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(ok(), what);
}

test("the version moves on the watched kinds' changes and on nothing else", async () => {
  const api = fakeClient();
  const kinds = new WatchedKinds({
    client: api.client,
    onLog: () => undefined,
    random: { next: () => 0.5 },
    sleep: () => new Promise(() => undefined),
  });
  try {
    const before = kinds.version;
    await kinds.follow([
      { text: "ConfigMap", selector: { by: "kind", group: "", version: "v1", kind: "ConfigMap", subresource: "" } },
    ]);
    assert.ok(kinds.version > before, "following a new kind moves it");
    await until("the ConfigMaps are listed and watched", api.watching);
    const listed = kinds.version;
    assert.ok(listed > before + 1, "the list moved it");
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(kinds.version, listed, "nothing changed, nothing moved");
    api.push({ type: "BOOKMARK", object: { metadata: { resourceVersion: "6" } } });
    assert.equal(kinds.version, listed, "a bookmark changes no object");
    api.push({
      type: "MODIFIED",
      object: { metadata: { namespace: "a", name: "one", uid: "u1", resourceVersion: "7" }, data: { k: "v" } },
    });
    assert.equal(kinds.version, listed + 1, "a watch event moves it");
  } finally {
    kinds.close();
  }
});
