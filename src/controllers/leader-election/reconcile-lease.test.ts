import { test } from "node:test";
import assert from "node:assert/strict";
import type { LeaseRecord } from "../../kube/lease-store.js";
import { reconcileLease, type LeaseView } from "./reconcile-lease.js";

const held = (holder: string, at = 0): LeaseRecord => ({
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  acquireTime: at,
  renewTime: at,
  leaseTransitions: 2,
});

const view = (o: Partial<LeaseView>): LeaseView => ({
  current: undefined,
  seen: undefined,
  observedAt: 0,
  missingSince: undefined,
  leading: false,
  identity: "me_1",
  leaseDurationMs: 15_000,
  now: 100_000,
  ...o,
});

test("a missing Lease never seen held is created at once, held by this replica", () => {
  const a = reconcileLease(view({}));
  assert.equal(a.kind, "create");
  assert.deepEqual(a.kind === "create" ? a.record : undefined, {
    holderIdentity: "me_1",
    leaseDurationSeconds: 15,
    acquireTime: 100_000,
    renewTime: 100_000,
    leaseTransitions: 0,
  });
});

test("a Lease deleted under another holder is waited for a lease duration from when it was found missing", () => {
  const seen = held("other_2");
  assert.deepEqual(reconcileLease(view({ seen })), { kind: "wait", missingSince: 100_000 });
  assert.deepEqual(reconcileLease(view({ seen, missingSince: 90_000 })), { kind: "wait", missingSince: 90_000 });
  assert.equal(reconcileLease(view({ seen, missingSince: 85_000 })).kind, "create");
});

test("another holder's Lease is left alone until it has not changed for its duration, then taken over", () => {
  const current = { record: held("other_2"), resourceVersion: "7" };
  assert.equal(reconcileLease(view({ current, observedAt: 90_000 })).kind, "wait");
  const take = reconcileLease(view({ current, observedAt: 85_000 }));
  assert.deepEqual(take, {
    kind: "update",
    resourceVersion: "7",
    record: {
      holderIdentity: "me_1",
      leaseDurationSeconds: 15,
      acquireTime: 100_000,
      renewTime: 100_000,
      leaseTransitions: 3,
    },
  });
});

test("the holder renews its own Lease at once, keeping acquireTime and the transitions", () => {
  const current = { record: held("me_1", 50_000), resourceVersion: "9" };
  const renew = reconcileLease(view({ current, observedAt: 99_000, leading: true }));
  assert.deepEqual(renew, {
    kind: "update",
    resourceVersion: "9",
    record: {
      holderIdentity: "me_1",
      leaseDurationSeconds: 15,
      acquireTime: 50_000,
      renewTime: 100_000,
      leaseTransitions: 2,
    },
  });
});
