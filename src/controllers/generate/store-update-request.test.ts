import { test } from "node:test";
import assert from "node:assert/strict";
import { KubeError } from "../../kube/kube-client.js";
import { storeWithRetry } from "./store-update-request.js";

const random = { next: () => 0 };

function failing(statuses: readonly number[]): { post: () => Promise<unknown>; calls: () => number } {
  let calls = 0;
  return {
    post: () => {
      const status = statuses[calls++];
      return status === undefined ? Promise.resolve({}) : Promise.reject(new KubeError(`status ${status}`, status, ""));
    },
    calls: () => calls,
  };
}

test("an UpdateRequest write the API server did not answer, throttled or failed on its side is written again, with a growing wait", async () => {
  const waits: number[] = [];
  const f = failing([0, 503, 429]);
  await storeWithRetry(f.post, { random, sleep: (ms) => Promise.resolve(void waits.push(ms)) });
  assert.equal(f.calls(), 4);
  assert.deepEqual(waits, [125, 250, 500]);
});

test("a refusal (forbidden, invalid) is not retried: the caller hears it at once", async () => {
  for (const status of [403, 422]) {
    const f = failing([status]);
    await assert.rejects(storeWithRetry(f.post, { random, sleep: () => Promise.resolve() }), (e: unknown) => {
      assert.ok(e instanceof KubeError && e.status === status);
      return true;
    });
    assert.equal(f.calls(), 1);
  }
});

test("after the last attempt the error is the caller's (who logs the work as lost)", async () => {
  const f = failing([503, 503, 503, 503, 503]);
  await assert.rejects(storeWithRetry(f.post, { random, sleep: () => Promise.resolve() }), /status 503/);
  assert.equal(f.calls(), 4);
});
