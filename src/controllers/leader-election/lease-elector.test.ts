import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LeaseElector, holderIdentity } from "./lease-elector.js";
import { microTime, type LeaseRecord, type LeaseStore, type StoredLease } from "../../kube/lease-store.js";

/**
 * A Lease kept in memory with the API server's optimistic concurrency: create fails when it
 * exists, update fails unless it names the current resourceVersion. Each call yields first, so
 * electors ticking together interleave their reads and writes.
 */
class MemoryLease {
  readonly name = "bylaw/bylaw-admission";
  stored: StoredLease | undefined;
  private rv = 0;
  /** Identities whose calls fail (a replica cut off from the API server). */
  readonly cutOff = new Set<string>();
  writes = 0;

  forIdentity(identity: string): LeaseStore {
    const check = async (): Promise<void> => {
      await Promise.resolve();
      if (this.cutOff.has(identity)) throw new Error(`connection refused (${identity})`);
    };
    return {
      name: this.name,
      get: async () => (await check(), this.stored),
      create: async (record) => {
        await check();
        if (this.stored !== undefined) throw new Error("409 AlreadyExists");
        return this.put(record);
      },
      update: async (record, resourceVersion) => {
        await check();
        if (this.stored === undefined) throw new Error("404 NotFound");
        if (this.stored.resourceVersion !== resourceVersion) throw new Error("409 Conflict");
        return this.put(record);
      },
    };
  }

  private put(record: LeaseRecord): StoredLease {
    this.writes++;
    this.stored = { record, resourceVersion: String(++this.rv) };
    return this.stored;
  }
}

/** A clock whose sleeps end only when `advance` moves time past them. */
class SteppedClock {
  t = 1_000_000;
  private sleepers: { at: number; wake: () => void }[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number): Promise<void> {
    return new Promise((wake) => this.sleepers.push({ at: this.t + ms, wake }));
  }
  async advance(ms: number): Promise<void> {
    this.t += ms;
    await settle();
    for (const s of this.sleepers.filter((x) => x.at <= this.t)) s.wake();
    this.sleepers = this.sleepers.filter((x) => x.at > this.t);
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
}

/** A store whose calls, once frozen, hang until thawed (an API server stopped, not refusing). */
function frozenWhenAsked(inner: LeaseStore) {
  let gate: Promise<void> | undefined;
  let open = (): void => undefined;
  const wait = async (): Promise<void> => {
    if (gate !== undefined) await gate;
  };
  const store: LeaseStore = {
    name: inner.name,
    get: async () => (await wait(), inner.get()),
    create: async (record) => (await wait(), inner.create(record)),
    update: async (record, rv) => (await wait(), inner.update(record, rv)),
  };
  return {
    store,
    freeze: (): void => {
      gate = new Promise<void>((r) => (open = r));
    },
    thaw: () => {
      gate = undefined;
      open();
    },
  };
}

function setUp(ids: string[]) {
  const lease = new MemoryLease();
  const clock = {
    t: 1_000_000,
    now() {
      return this.t;
    },
    sleep: () => new Promise<void>(() => undefined),
  };
  const electors = ids.map(
    (id) => new LeaseElector({ store: lease.forIdentity(id), identity: id, clock, random: { next: () => 0.5 } }),
  );
  return { lease, clock, electors, leaders: () => electors.filter((e) => e.isLeader()).map((e) => e.identity) };
}

describe("LeaseElector", () => {
  test("acquires a missing Lease, then renews it every retry keeping acquireTime", async () => {
    const {
      lease,
      clock,
      electors: [a],
    } = setUp(["a"]);
    const changes: boolean[] = [];
    a?.onChange((l) => changes.push(l));
    await a?.tick();
    assert.equal(a?.isLeader(), true);
    assert.deepEqual(lease.stored?.record, {
      holderIdentity: "a",
      leaseDurationSeconds: 15,
      acquireTime: clock.t,
      renewTime: clock.t,
      leaseTransitions: 0,
    });
    const acquired = clock.t;
    clock.t += 2_000;
    await a?.tick();
    assert.equal(lease.stored?.record.renewTime, clock.t);
    assert.equal(lease.stored?.record.acquireTime, acquired);
    assert.deepEqual(changes, [true]);
  });

  test("a leader whose renewals fail steps down after renewDeadline, before the Lease expires for others", async () => {
    const {
      lease,
      clock,
      electors: [a, b],
      leaders,
    } = setUp(["a", "b"]);
    await a?.tick();
    await b?.tick();
    assert.deepEqual(leaders(), ["a"]);
    lease.cutOff.add("a");
    for (let s = 2; s < 10; s += 2) {
      clock.t += 2_000;
      await a?.tick();
      await b?.tick();
      assert.deepEqual(leaders(), ["a"], `still leading ${s} s after its last renewal`);
    }
    clock.t += 2_000; // 10 s: renewDeadline passed
    assert.equal(a?.isLeader(), false, "isLeader() reads the clock: no tick needed");
    await a?.tick();
    await b?.tick();
    assert.deepEqual(leaders(), [], "b waits for the whole lease duration");
    clock.t += 5_000; // 15 s since b saw a's last renewal
    await b?.tick();
    assert.deepEqual(leaders(), ["b"]);
    assert.equal(lease.stored?.record.holderIdentity, "b");
    assert.equal(lease.stored?.record.leaseTransitions, 1);
    lease.cutOff.delete("a");
    await a?.tick();
    assert.deepEqual(leaders(), ["b"], "a, back, finds b holding a fresh Lease");
  });

  test("an API server that stops answering: the leader steps down at renewDeadline, then competes again", async () => {
    const lease = new MemoryLease();
    const clock = new SteppedClock();
    const api = frozenWhenAsked(lease.forIdentity("a"));
    const logs: string[] = [];
    const a = new LeaseElector({
      store: api.store,
      identity: "a",
      clock,
      random: { next: () => 0.5 },
      onLog: (_level, message, fields) => logs.push(`${message} ${JSON.stringify(fields)}`),
    });
    const changes: boolean[] = [];
    a.onChange((l) => changes.push(l));
    a.start();
    await clock.advance(0);
    assert.deepEqual(changes, [true]);
    api.freeze(); // the next renewal's GET never answers (SIGSTOP of the API server)
    await clock.advance(2_000);
    await clock.advance(7_999);
    assert.deepEqual(changes, [true], "still leading 9.999 s after the last renewal");
    await clock.advance(1);
    assert.deepEqual(changes, [true, false], "stepped down at renewDeadline, within the lease duration");
    assert.ok(
      logs.some((l) => l.includes("stopped leading") && l.includes("renewDeadline")),
      logs.join("\n"),
    );
    api.thaw(); // the API server answers the hung GET; the renewal that follows came too late to count
    await clock.advance(0);
    assert.deepEqual(changes, [true, false]);
    assert.ok(
      logs.some((l) => l.includes("too late to count")),
      logs.join("\n"),
    );
    await clock.advance(2_200);
    assert.deepEqual(changes, [true, false, true], "competes again and, the Lease being its own, leads");
    await a.stop();
  });

  test("stop() with the API server not answering: returns after half of renewDeadline, no longer leading", async () => {
    const lease = new MemoryLease();
    const clock = new SteppedClock();
    const api = frozenWhenAsked(lease.forIdentity("a"));
    const logs: string[] = [];
    const a = new LeaseElector({
      store: api.store,
      identity: "a",
      clock,
      random: { next: () => 0.5 },
      onLog: (_level, message) => logs.push(message),
    });
    a.start();
    await clock.advance(0);
    assert.equal(a.isLeader(), true);
    api.freeze();
    await clock.advance(2_000); // the renewal's GET now hangs
    let stopped = false;
    const stopping = a.stop().then(() => (stopped = true));
    await clock.advance(0); // stop() has started waiting
    await clock.advance(4_999);
    assert.equal(stopped, false, "waits for the renewal in flight up to half of renewDeadline");
    await clock.advance(1);
    await stopping;
    assert.equal(a.isLeader(), false);
    assert.ok(
      logs.some((l) => l.includes("stopped leading")),
      logs.join("\n"),
    );
    api.thaw();
    await clock.advance(0);
    assert.equal(lease.stored?.record.holderIdentity, "a", "nothing more written after stop; the Lease expires");
  });

  test("stop() when the release write hangs: returns after half of renewDeadline", async () => {
    const lease = new MemoryLease();
    const clock = new SteppedClock();
    const api = frozenWhenAsked(lease.forIdentity("a"));
    const logs: string[] = [];
    const a = new LeaseElector({
      store: api.store,
      identity: "a",
      clock,
      random: { next: () => 0.5 },
      onLog: (_level, message) => logs.push(message),
    });
    a.start();
    await clock.advance(0);
    assert.equal(a.isLeader(), true);
    api.freeze(); // the loop sleeps between renewals, so only the release meets the frozen API server
    let stopped = false;
    const stopping = a.stop().then(() => (stopped = true));
    await clock.advance(0); // stop() has started waiting
    await clock.advance(4_999);
    assert.equal(stopped, false, "waits for the release up to half of renewDeadline");
    await clock.advance(1);
    await stopping;
    assert.equal(a.isLeader(), false);
    assert.ok(
      logs.some((l) => l.includes("did not answer the release")),
      logs.join("\n"),
    );
    api.thaw();
  });

  test("the expiry counts from when this replica saw the record change, not from the holder's renewTime", async () => {
    const {
      lease,
      clock,
      electors: [b],
    } = setUp(["b"]);
    // A holder whose clock is an hour behind: its renewTime looks long expired.
    lease.stored = {
      resourceVersion: "7",
      record: {
        holderIdentity: "a",
        leaseDurationSeconds: 15,
        acquireTime: clock.t - 3_600_000,
        renewTime: clock.t - 3_600_000,
        leaseTransitions: 3,
      },
    };
    await b?.tick();
    assert.equal(b?.isLeader(), false);
    clock.t += 14_999;
    await b?.tick();
    assert.equal(b?.isLeader(), false);
    clock.t += 1;
    await b?.tick();
    assert.equal(b?.isLeader(), true);
    assert.equal(lease.stored.record.leaseTransitions, 4);
  });

  test("replicas racing for one Lease: exactly one wins each conflicting write", async () => {
    const { clock, electors, leaders, lease } = setUp(["a", "b", "c"]);
    await Promise.all(electors.map((e) => e.tick()));
    assert.equal(leaders().length, 1);
    assert.equal(lease.writes, 1, "one create went through; the others got AlreadyExists");
    // Released: all three see the empty holder and race for it at once.
    const first = electors.find((e) => e.isLeader());
    await first?.stop();
    assert.equal(lease.stored?.record.holderIdentity, "", "released on stop");
    clock.t += 2_000;
    const others = electors.filter((e) => e !== first);
    await Promise.all(others.map((e) => e.tick()));
    assert.equal(leaders().length, 1, "the released Lease is taken at once, by one");
  });

  for (const start of [42, 7, 1234, 99_991, 5])
    test(`never two leaders: random interleavings, partitions and lease deletions (seed ${start})`, async () => {
      let seed = start;
      const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const { lease, clock, electors, leaders } = setUp(["a", "b", "c"]);
      let handovers = 0;
      let last: string | undefined;
      // Each has read the Lease once (a replica that never read it creates a missing one at once).
      for (const e of electors) await e.tick();
      for (let step = 0; step < 3_000; step++) {
        clock.t += Math.floor(rand() * 1_500);
        const r = rand();
        if (r < 0.02)
          lease.stored = undefined; // someone deleted the Lease
        else if (r < 0.06) {
          const id = ["a", "b", "c"][Math.floor(rand() * 3)] as string;
          if (lease.cutOff.has(id)) lease.cutOff.delete(id);
          else lease.cutOff.add(id);
        }
        const ticking = electors.filter(() => rand() < 0.6);
        await Promise.all(ticking.map((e) => e.tick()));
        const now = leaders();
        assert.ok(now.length <= 1, `step ${step}: two leaders ${now.join(", ")}`);
        if (now[0] !== undefined && now[0] !== last) {
          handovers++;
          last = now[0];
        }
      }
      assert.ok(handovers > 5, `leadership moved ${handovers} times: the run exercised handovers`);
    });

  test("settings are checked; identities and MicroTime are as the API expects", () => {
    const store = new MemoryLease().forIdentity("x");
    const clock = { now: () => 0, sleep: () => Promise.resolve() };
    assert.throws(
      () =>
        new LeaseElector({
          store,
          identity: "x",
          clock,
          random: { next: () => 0 },
          leaseDurationMs: 10_000,
          renewDeadlineMs: 10_000,
        }),
      /leaseDuration > renewDeadline/,
    );
    assert.match(holderIdentity("bylaw-7d9f-abcde", { next: () => 0.25 }), /^bylaw-7d9f-abcde_[0-9a-z]{6}$/);
    assert.equal(microTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), "2026-01-02T03:04:05.678000Z");
  });
});
