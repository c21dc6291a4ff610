/** A served policy's background grants, checked again for its Ready condition (a grant removed after admission). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonValue } from "../../engine/index.js";
import type { ResourceAccess } from "../../kube/access-review.js";
import type { PolicyOutcome } from "../../controllers/policy-status/policy-status.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { backgroundReadiness } from "./background-readiness.js";
import type { PermissionChecks } from "../registration/background-access.js";

const USER = "system:serviceaccount:bylaw:bylaw-background-controller";
const doc = clusterPolicy("pc", [
  {
    name: "pc",
    match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
    generate: { generateExisting: true, apiVersion: "v1", kind: "Secret", name: "s", namespace: "ops", data: {} },
  },
]);
const out = createEngine(fakePorts()).compile(doc);
assert.ok(out.ok);
const outcome: PolicyOutcome = {
  kind: "ClusterPolicy",
  namespace: "",
  name: "pc",
  uid: "u",
  resourceVersion: "1",
  generation: 1,
  rules: (doc["spec"] as { rules: JsonValue[] }).rules,
  status: undefined,
  compiled: out.policy,
  problems: [],
};

test("a grant removed is a problem naming the verb, the kind and the ServiceAccount; answers are kept for the TTL", async () => {
  let granted = true;
  const asked: ResourceAccess[] = [];
  const checks: PermissionChecks = {
    user: USER,
    resolve: (s) => (s.kind === "ConfigMap" ? [{ group: "", resource: "configmaps", namespaced: true }] : undefined),
    canI: (a) => {
      asked.push(a);
      return Promise.resolve(granted);
    },
  };
  let now = 0;
  const check = backgroundReadiness({ checks: () => checks, now: () => now, ttlMs: 20_000 });
  assert.deepEqual(await check(outcome), []);
  const first = asked.length;
  assert.ok(first > 0);
  granted = false;
  now = 10_000;
  assert.deepEqual(await check(outcome), [], "within the TTL the last answer stands");
  assert.equal(asked.length, first);
  now = 30_000;
  assert.deepEqual(await check(outcome), [
    `spec.rules[0].generate.generateExisting: ${USER} does not have permissions to 'get' resource ConfigMap in every namespace, the existing triggers generateExisting reads. Grant proper permissions to the background controller`,
  ]);
});

test("without registration's checks, or for a policy not served, nothing is asked", async () => {
  const check = backgroundReadiness({ checks: () => undefined, now: () => 0 });
  assert.deepEqual(await check(outcome), []);
  const unserved: PolicyOutcome = { ...outcome, problems: ["spec: invalid"] };
  delete (unserved as { compiled?: unknown }).compiled;
  const never = backgroundReadiness({
    checks: () => ({ user: USER, resolve: () => undefined, canI: () => Promise.reject(new Error("asked")) }),
    now: () => 0,
  });
  assert.deepEqual(await never(unserved), []);
});
