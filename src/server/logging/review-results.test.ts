/**
 * Issue 37: Bylaw's per-review log line names the policy, rule, resource and result, as structured
 * fields a log query selects on. Through the validating and mutating handlers (real compiled
 * policies), the outcome they record, and logAdmission's JSON line.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";
import { capture } from "../../../test/support/log-capture.js";
import { handleMutate, handleValidate } from "../admission/index.js";
import { createLogger } from "./create-logger.js";
import { logAdmission } from "./log-admission.js";

const requireTeam = (action: string): JsonObject =>
  clusterPolicy(
    "require-team",
    [
      {
        name: "check-team",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        validate: { message: "label team is required", pattern: { metadata: { labels: { team: "?*" } } } },
      },
    ],
    { validationFailureAction: action },
  );

const noLatest = clusterPolicy(
  "disallow-latest",
  [
    {
      name: "pin-images",
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      validate: { message: "pin the image", pattern: { spec: { containers: [{ image: "!*:latest" }] } } },
    },
  ],
  { validationFailureAction: "Enforce" },
);

async function logLine(
  policies: JsonObject[],
  object: JsonObject,
  handler: typeof handleValidate | typeof handleMutate = handleValidate,
): Promise<Record<string, unknown>> {
  const fake = fakeDeps({ policies });
  const out = capture();
  const logger = createLogger({ destination: out });
  // The server's recorder logs each outcome with the results it was decided from.
  await Promise.resolve(
    handler(reviewOf(object), {
      ...fake.deps,
      recorder: { ...fake.deps.recorder, admission: (o, results) => logAdmission(logger, o, undefined, results) },
    }),
  );
  assert.equal(out.records().length, 1, "the review logged one line");
  return out.records()[0] ?? {};
}

test("a denied review's line names the policy and rule that denied it, the resource and the result", async () => {
  const line = await logLine([requireTeam("Enforce"), noLatest], pod({ name: "web", labels: { app: "a" } }));
  assert.equal(line["decision"], "denied");
  assert.deepEqual(
    { kind: line["kind"], namespace: line["namespace"], name: line["name"] },
    { kind: "Pod", namespace: "default", name: "web" },
  );
  assert.deepEqual(
    { policy: line["policy"], rule: line["rule"], result: line["result"] },
    { policy: "require-team", rule: "check-team", result: "fail" },
  );
  assert.deepEqual(line["results"], ["require-team/check-team: fail", "disallow-latest/pin-images: pass"]);
});

test("an admitted review with an Audit failure names that failure; a review no rule applied to has no result fields", async () => {
  const line = await logLine([noLatest, requireTeam("Audit")], pod({ name: "web", labels: { app: "a" } }));
  assert.equal(line["decision"], "allowed");
  assert.deepEqual([line["policy"], line["rule"], line["result"]], ["require-team", "check-team", "fail"]);
  const none = await logLine([], pod({ name: "web" }));
  assert.equal("policy" in none || "results" in none, false);
});

test("a mutating review's line names the mutate rule that applied", async () => {
  const addLabel = clusterPolicy("add-team", [
    {
      name: "default-team",
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      mutate: { patchStrategicMerge: { metadata: { labels: { team: "core" } } } },
    },
  ]);
  const line = await logLine([addLabel], pod({ name: "web" }), handleMutate);
  assert.deepEqual([line["policy"], line["rule"], line["result"]], ["add-team", "default-team", "pass"]);
});
