import { test } from "node:test";
import assert from "node:assert/strict";
import { ComponentPresence, presenceOf } from "./component-presence.js";
import type { LeaseRecord, LeaseStore } from "../../kube/lease-store.js";

const held = (renewTime: number, holderIdentity = "bylaw-background-1_ab"): LeaseRecord => ({
  holderIdentity,
  leaseDurationSeconds: 15,
  acquireTime: 0,
  renewTime,
  leaseTransitions: 0,
});

test("a component is running while its Lease is held and renewed within its duration", () => {
  assert.deepEqual(presenceOf(held(100_000), 110_000, "bylaw/x"), { state: "running" });
  assert.deepEqual(presenceOf(held(100_000), 115_000, "bylaw/x"), { state: "running" });
});

test("a Lease not renewed within its duration, or released, is a component down, naming the Lease", () => {
  assert.deepEqual(presenceOf(held(100_000), 115_001, "bylaw/x"), {
    state: "down",
    why: "its Lease bylaw/x has not been renewed within its 15s duration",
  });
  assert.deepEqual(presenceOf(held(100_000, ""), 100_000, "bylaw/x"), {
    state: "down",
    why: "its Lease bylaw/x has no holder",
  });
});

test("no Lease: the component is absent (never started here)", () => {
  assert.deepEqual(presenceOf(undefined, 0, "bylaw/x"), { state: "absent" });
});

test("ComponentPresence reads each Lease, reports changes, and keeps the last state when a read fails", async () => {
  let lease: LeaseRecord | undefined = held(1000);
  let fail = false;
  const store: LeaseStore = {
    name: "bylaw/bylaw-background-controller",
    get: () =>
      fail
        ? Promise.reject(new Error("forbidden"))
        : Promise.resolve(lease === undefined ? undefined : { record: lease, resourceVersion: "1" }),
    create: () => Promise.reject(new Error("not here")),
    update: () => Promise.reject(new Error("not here")),
  };
  let now = 2000;
  const logs: string[] = [];
  const presence = new ComponentPresence({
    leases: new Map([["background", store]]),
    now: () => now,
    pollMs: 60_000,
    onLog: (_l, m) => logs.push(m),
  });
  let changes = 0;
  presence.onChange(() => changes++);
  await presence.start();
  assert.equal(presence.of("background").state, "running");
  assert.equal(changes, 1);
  now = 20_000;
  fail = true;
  await (presence as unknown as { poll(): Promise<void> }).poll();
  assert.equal(presence.of("background").state, "running", "a failed read changes nothing");
  assert.ok(logs.includes("cannot read a component's Lease; its last state stays"));
  fail = false;
  await (presence as unknown as { poll(): Promise<void> }).poll();
  assert.equal(presence.of("background").state, "down");
  assert.equal(changes, 2);
  lease = undefined;
  await (presence as unknown as { poll(): Promise<void> }).poll();
  assert.equal(presence.of("background").state, "absent");
  presence.stop();
});
