/**
 * The policy webhook as `serve` runs it: after compiling, `vetPolicy` (the checks `serve` refuses a
 * policy for at load, and whether the API server would accept its webhook) may deny it, with the
 * field; a policy that does not compile is denied without asking.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { problem, type JsonObject } from "../../engine/index.js";
import { clusterPolicy, podRule } from "../../../test/support/builders.js";
import { handlePolicyValidateVetted } from "./index.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const rule = podRule("check", { message: "m", pattern: { metadata: { labels: { app: "?*" } } } });
const review = (doc: JsonObject): JsonObject =>
  reviewOf(doc, { resource: { group: "kyverno.io", version: "v1", resource: "clusterpolicies" } });

describe("policyvalidate with vetPolicy", () => {
  test("a problem vetPolicy finds denies the policy, naming the field; the warnings stay", async () => {
    const fake = fakeDeps();
    const asked: string[] = [];
    const deps = {
      ...fake.deps,
      vetPolicy: (p: { name: string }) => {
        asked.push(p.name);
        return Promise.resolve([problem("spec.webhookConfiguration.matchConditions", "the API server refuses it")]);
      },
    };
    const r = await handlePolicyValidateVetted(review(clusterPolicy("p", [rule])), deps);
    assert.equal(r.status, 200);
    if (r.status !== 200) return;
    assert.equal(r.body.response.allowed, false);
    assert.match(
      r.body.response.status?.message ?? "",
      /spec\.webhookConfiguration\.matchConditions: the API server refuses it/,
    );
    assert.equal(r.body.response.warnings?.length, 1, "Kyverno's deprecation notice");
    assert.deepEqual(asked, ["p"]);
    assert.equal(fake.admissions.length, 1, "recorded once");
  });

  test("no problem: allowed; a policy that does not compile is denied without asking", async () => {
    const fake = fakeDeps();
    let asked = 0;
    const deps = { ...fake.deps, vetPolicy: () => (asked++, Promise.resolve([])) };
    const ok = await handlePolicyValidateVetted(review(clusterPolicy("p", [rule])), deps);
    assert.equal(ok.status === 200 && ok.body.response.allowed, true);
    const bad = await handlePolicyValidateVetted(review(clusterPolicy("p", [{ name: "r" }])), deps);
    assert.equal(bad.status === 200 && bad.body.response.allowed, false);
    assert.equal(asked, 1);
  });
});

describe("policyvalidate passes the policy's author to vetPolicy", () => {
  test("a create's user is the author; an update that changes only metadata has none; one that changes the spec does", async () => {
    const fake = fakeDeps();
    const authors: (string | undefined)[] = [];
    const deps = {
      ...fake.deps,
      vetPolicy: (_p: unknown, author?: { username: string }) => (authors.push(author?.username), Promise.resolve([])),
    };
    const before = clusterPolicy("p", [rule]);
    const labelled = { ...before, metadata: { name: "p", labels: { team: "a" } } };
    const changed = clusterPolicy("p", [podRule("other", { message: "n", pattern: { metadata: { name: "?*" } } })]);
    const update = (object: JsonObject): JsonObject =>
      reviewOf(object, {
        resource: { group: "kyverno.io", version: "v1", resource: "clusterpolicies" },
        operation: "UPDATE",
        oldObject: before,
        userInfo: { username: "bob", groups: ["system:authenticated"] },
      });
    await handlePolicyValidateVetted(review(before), deps);
    await handlePolicyValidateVetted(update(labelled), deps);
    await handlePolicyValidateVetted(update(changed), deps);
    assert.deepEqual(authors, ["alice", undefined, "bob"]);
  });
});

describe("policyvalidate asks vetCleanup about a cleanup policy's author (tenant isolation, rule 4)", () => {
  const cleanupPolicy: JsonObject = {
    apiVersion: "kyverno.io/v2",
    kind: "CleanupPolicy",
    metadata: { name: "sweep", namespace: "tenant-a" },
    spec: { schedule: "*/5 * * * *", match: { any: [{ resources: { kinds: ["Secret", "ConfigMap"] } }] } },
  };
  const deletingPolicy: JsonObject = {
    apiVersion: "policies.kyverno.io/v1",
    kind: "NamespacedDeletingPolicy",
    metadata: { name: "sweep", namespace: "tenant-a" },
    spec: {
      schedule: "*/5 * * * *",
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"] }] },
      conditions: [{ name: "old", expression: "true" }],
    },
  };
  const reviewAs = (doc: JsonObject, group: string, resource: string): JsonObject =>
    reviewOf(doc, { resource: { group, version: "v2", resource }, namespace: "tenant-a" });

  for (const [label, doc, group, resource, expected] of [
    [
      "CleanupPolicy",
      cleanupPolicy,
      "kyverno.io",
      "cleanuppolicies",
      ["list,delete Secret in tenant-a", "list,delete ConfigMap in tenant-a"],
    ],
    [
      "NamespacedDeletingPolicy",
      deletingPolicy,
      "policies.kyverno.io",
      "namespaceddeletingpolicies",
      ["list,delete /secrets in tenant-a"],
    ],
  ] as const)
    test(`${label}: what it deletes is asked for its author; a refusal denies it with the field`, async () => {
      const fake = fakeDeps();
      const asked: string[] = [];
      const authors: (string | undefined)[] = [];
      const deps = {
        ...fake.deps,
        cleanupController: true,
        vetPolicy: () => Promise.reject(new Error("not for a cleanup policy")),
        vetCleanup: (
          deletes: readonly {
            path: string;
            verbs: readonly string[];
            namespace: string;
            what: { by: string; kind?: string; group?: string; resource?: string };
          }[],
          author?: { username: string },
        ) => {
          authors.push(author?.username);
          for (const d of deletes)
            asked.push(
              `${d.verbs.join(",")} ${d.what.kind ?? `${d.what.group ?? ""}/${d.what.resource ?? ""}`} in ${d.namespace}`,
            );
          return Promise.resolve([problem(deletes[0]?.path ?? "spec", "the policy's author alice may not delete")]);
        },
      };
      const r = await handlePolicyValidateVetted(reviewAs(doc, group, resource), deps);
      assert.equal(r.status, 200);
      if (r.status !== 200) return;
      assert.equal(r.body.response.allowed, false, "denied");
      assert.match(r.body.response.status?.message ?? "", /spec\.match.*: the policy's author alice may not delete/);
      assert.deepEqual(asked, expected);
      assert.deepEqual(authors, ["alice"]);
    });
});
