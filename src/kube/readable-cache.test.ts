import { test } from "node:test";
import assert from "node:assert/strict";
import type { Informer } from "./informer.js";
import type { LiveCluster } from "./live-cluster.js";
import { readable } from "./readable-cache.js";

/** A cluster whose one cache has not synced, its last list having failed as given. */
function unsynced(failure: { message: string; status: 403 | 404 | undefined }): LiveCluster {
  const informer = {
    health: () => ({ ok: false, reason: `the pods.v1 cache has not synced yet (${failure.message})` }),
    refusedStatus: failure.status,
    lastFailure: failure.message,
  } as unknown as Informer;
  return {
    cacheFor: () => ({ ok: true, informer }),
    isSynced: () => false,
  } as unknown as LiveCluster;
}

const GVR = { group: "", version: "v1", resource: "pods" };
const scope = { reader: "", namespace: undefined };

test("a list the API server refused (403, 404) is a failed call an apiCall.default replaces, as Kyverno's GET", () => {
  for (const status of [403, 404] as const) {
    const r = readable(unsynced({ message: `pods is forbidden (${status})`, status }), GVR, "failed to GET x", scope);
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.error.kind, "context");
      assert.equal(r.error.message, `failed to GET x: pods is forbidden (${status})`);
    }
  }
});

test("a cache not synced for another reason (no answer yet) is not-ready: no default replaces it", () => {
  const r = readable(unsynced({ message: "connect ECONNREFUSED", status: undefined }), GVR, "failed to GET x", scope);
  assert.equal(r.ok ? "" : r.error.kind, "not-ready");
});
