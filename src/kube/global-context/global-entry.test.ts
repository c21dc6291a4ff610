/** GlobalContextEntry data (global-entry.ts): apiCall entries refreshed with retries and projections computed once per refresh; Go durations. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { EgressPolicy } from "../egress/egress-policy.js";
import type { KubeClient } from "../kube-client.js";
import { apiEntry, type Projection } from "./global-entry.js";

const policy = (EgressPolicy.create() as { ok: true; value: EgressPolicy }).value;
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe("GlobalContextEntry apiCall entries", () => {
  it("read the answer and its projections (each computed once per refresh); retry up to retryLimit; stop", async () => {
    let gets = 0;
    let searches = 0;
    const client = {
      getJson: async (path: string) =>
        gets++ === 0 ? Promise.reject(new Error("connection refused")) : { path, items: [{ n: "a" }, { n: "b" }] },
    } as unknown as KubeClient;
    const names: Projection = {
      name: "names",
      search: (d) => (searches++, (d as { items: { n: string }[] }).items.map((i) => i.n)),
    };
    let refreshed = 0;
    const entry = apiEntry({ urlPath: "/api/v1/pods", method: "GET", refreshMs: 60_000, retryLimit: 3 }, [names], {
      client,
      egress: { policy },
      now: () => 5,
      sleep: async () => undefined,
      onRefresh: () => refreshed++,
    });
    assert.equal(entry.read("").ok, false, "no data before the first answer");
    for (let i = 0; i < 10 && refreshed === 0; i++) await tick();
    assert.equal(gets, 2, "one failure, then a retry");
    assert.deepEqual(entry.read("names"), { ok: true, value: ["a", "b"] });
    assert.deepEqual(entry.read("names"), { ok: true, value: ["a", "b"] });
    assert.equal(searches, 1, "the projection is computed once per refresh, not per read");
    assert.deepEqual(entry.state(), { ready: true, message: "Ready", refreshedAt: 5 });
    const missing = entry.read("nope");
    assert.equal(missing.ok ? "" : missing.error.message, "no data available");
    entry.stop();
  });

  it("a failure after every attempt is the entry's error and its status message", async () => {
    const client = { getJson: async () => Promise.reject(new Error("pods is forbidden")) } as unknown as KubeClient;
    let refreshed = 0;
    const entry = apiEntry({ urlPath: "/api/v1/pods", method: "GET", refreshMs: 60_000, retryLimit: 2 }, [], {
      client,
      egress: { policy },
      now: () => 0,
      sleep: async () => undefined,
      onRefresh: () => refreshed++,
    });
    for (let i = 0; i < 10 && refreshed === 0; i++) await tick();
    const r = entry.read("");
    assert.equal(r.ok ? "" : r.error.message, "failed to GET resource with raw url: /api/v1/pods: pods is forbidden");
    assert.equal(entry.state().ready, false);
    entry.stop();
  });

  it("a service entry goes through the egress filter: loopback is refused", async () => {
    let refreshed = 0;
    const entry = apiEntry(
      { service: { url: "http://127.0.0.1:1/x" }, method: "GET", refreshMs: 60_000, retryLimit: 1 },
      [],
      {
        client: {} as KubeClient,
        egress: { policy },
        now: () => 0,
        sleep: async () => undefined,
        onRefresh: () => refreshed++,
      },
    );
    for (let i = 0; i < 10 && refreshed === 0; i++) await tick();
    const r = entry.read("");
    assert.match(r.ok ? "" : r.error.message, /loopback/);
    entry.stop();
  });
});
