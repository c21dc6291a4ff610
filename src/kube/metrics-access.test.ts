import { test } from "node:test";
import assert from "node:assert/strict";
import { MetricsAccessReviewer } from "./metrics-access.js";

/** A fake API server: tokens to users, and the users allowed to get /metrics. */
function fakeClient(users: Record<string, string>, allowed: readonly string[]) {
  const calls: { path: string; body: unknown }[] = [];
  return {
    calls,
    sendJson(_method: string, path: string, body: unknown): Promise<unknown> {
      calls.push({ path, body });
      if (path.endsWith("/tokenreviews")) {
        const token = (body as { spec: { token: string } }).spec.token;
        if (token === "broken") return Promise.reject(new Error("connection refused"));
        const username = users[token];
        return Promise.resolve({
          status:
            username === undefined
              ? { authenticated: false }
              : { authenticated: true, user: { username, groups: ["g"] } },
        });
      }
      const spec = (body as { spec: { user: string; nonResourceAttributes: unknown } }).spec;
      assert.deepEqual(spec.nonResourceAttributes, { path: "/metrics", verb: "get" });
      return Promise.resolve({ status: { allowed: allowed.includes(spec.user) } });
    },
  };
}

test("no or malformed header 401; an unknown token 401; a user without the right 403; an allowed one ok", async () => {
  const client = fakeClient({ t1: "system:serviceaccount:monitoring:prometheus", t2: "tenant-a-admin" }, [
    "system:serviceaccount:monitoring:prometheus",
  ]);
  const reviewer = new MetricsAccessReviewer({ client });
  assert.equal((await reviewer.check(undefined)).ok, false);
  assert.deepEqual(await reviewer.check("Basic abc"), await reviewer.check(undefined));
  assert.equal(client.calls.length, 0, "no header, no review");
  const unknown = await reviewer.check("Bearer nope");
  assert.equal(!unknown.ok && unknown.status, 401);
  const tenant = await reviewer.check("Bearer t2");
  assert.equal(!tenant.ok && tenant.status, 403);
  assert.match(!tenant.ok ? tenant.message : "", /tenant-a-admin may not get \/metrics/);
  assert.deepEqual(await reviewer.check("Bearer t1"), { ok: true });
  const failed = await reviewer.check("Bearer broken");
  assert.equal(!failed.ok && failed.status, 503);
});

test("answers are kept for their time by the token's hash, and the map stays within its bound", async () => {
  let now = 0;
  const client = fakeClient({ t1: "prom" }, ["prom"]);
  const reviewer = new MetricsAccessReviewer({ client, now: () => now, maxEntries: 2 });
  await reviewer.check("Bearer t1");
  await reviewer.check("Bearer t1");
  assert.equal(client.calls.length, 2, "one TokenReview and one SubjectAccessReview for two scrapes");
  now = 61_000;
  await reviewer.check("Bearer t1");
  assert.equal(client.calls.length, 4, "asked again once the answer is 60 s old");
  for (const t of ["a", "b", "c", "d"]) await reviewer.check(`Bearer ${t}`);
  const kept = (reviewer as unknown as { answers: Map<string, unknown> }).answers;
  assert.equal(kept.size, 2);
  for (const key of kept.keys()) assert.match(key, /^[0-9a-f]{64}$/, "kept by hash, never the token");
});
