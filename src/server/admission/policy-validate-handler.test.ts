/** The policy webhook: invalid policies are denied with field paths; warnings and Kyverno's deprecation notice. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { clusterPolicy, podRule } from "../../../test/support/builders.js";
import { handlePolicyValidate } from "./index.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const CPOL_NOTICE =
  "ClusterPolicy (kyverno.io) is deprecated and will be removed in a future release; migrate to ValidatingPolicy, MutatingPolicy, GeneratingPolicy or ImageValidatingPolicy (policies.kyverno.io), see https://kyverno.io/docs/guides/migration-to-cel/";
const POL_NOTICE =
  "Policy (kyverno.io) is deprecated and will be removed in a future release; migrate to NamespacedValidatingPolicy, NamespacedMutatingPolicy, NamespacedGeneratingPolicy or NamespacedImageValidatingPolicy (policies.kyverno.io), see https://kyverno.io/docs/guides/migration-to-cel/";

const rule = podRule("check", { message: "m", pattern: { metadata: { labels: { app: "?*" } } } });
const policyReview = (doc: JsonObject, extra: JsonObject = {}): JsonObject =>
  reviewOf(doc, { resource: { group: "kyverno.io", version: "v1", resource: "clusterpolicies" }, ...extra });

function answer(body: JsonObject) {
  const fake = fakeDeps();
  const r = handlePolicyValidate(body, fake.deps);
  assert.equal(r.status, 200);
  if (r.status !== 200) throw new Error("unreachable");
  return { response: r.body.response, admissions: fake.admissions };
}

describe("policyvalidate", () => {
  test("a valid ClusterPolicy is allowed with the deprecation notice", () => {
    const { response, admissions } = answer(policyReview(clusterPolicy("ok", [rule])));
    assert.deepEqual(response, { uid: "705ab4f5-6393-11e8-b7cc-42010a800002", allowed: true, warnings: [CPOL_NOTICE] });
    assert.equal(admissions[0]?.webhook, "policyvalidate");
  });
  test("a namespaced Policy gets the Namespaced* notice", () => {
    const doc = {
      apiVersion: "kyverno.io/v1",
      kind: "Policy",
      metadata: { name: "p", namespace: "team" },
      spec: { rules: [rule] },
    };
    assert.deepEqual(answer(policyReview(doc)).response.warnings, [POL_NOTICE]);
  });
  test("webhookConfiguration.matchConditions that do not compile are refused at kubectl apply, naming the field and the position", () => {
    const doc = clusterPolicy("scoped", [rule], {
      webhookConfiguration: { matchConditions: [{ name: "broken", expression: "object.metadata.name ==" }] },
    });
    const { response } = answer(policyReview(doc));
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /spec\.webhookConfiguration\.matchConditions\[0\]\.expression: Invalid value: .*ERROR: <input>:1:\d+/,
    );
    const fine = clusterPolicy("scoped", [rule], {
      webhookConfiguration: { matchConditions: [{ name: "ok", expression: "object.metadata.name != ''" }] },
    });
    assert.equal(answer(policyReview(fine)).response.allowed, true);
  });
  test("problems deny, each as path: message", () => {
    const doc = clusterPolicy("bad", [rule, rule]);
    const { response } = answer(policyReview(doc));
    assert.equal(response.allowed, false);
    assert.match(response.status?.message ?? "", /^spec\.rules\[1\]\S*: .*[Dd]uplicate/);
    assert.equal(response.status?.status, "Failure");
  });
  test("several problems are joined with '; '", () => {
    const doc = { apiVersion: "kyverno.io/v1", kind: "ClusterPolicy", metadata: {}, spec: { rules: [{}] } };
    const message = answer(policyReview(doc)).response.status?.message ?? "";
    assert.deepEqual(
      message.split("; ").map((m) => m.split(":")[0]),
      ["metadata.name", "spec.rules[0].match", "spec.rules[0].name"],
    );
  });
  test("the deprecated spec.generateExistingOnPolicyUpdate is denied naming its replacement and bylaw fix, as bylaw apply says it", () => {
    const doc = clusterPolicy("gen", [rule], { generateExistingOnPolicyUpdate: true });
    const { response } = answer(policyReview(doc));
    assert.equal(response.allowed, false);
    assert.equal(
      response.status?.message,
      "spec.generateExistingOnPolicyUpdate: remove the deprecated field spec.generateExistingOnPolicyUpdate; use generateExisting in each generate rule (spec.rules[*].generate.generateExisting) (`bylaw fix policy PATH` rewrites it)",
    );
    // A problem `bylaw fix` does not rewrite names no command.
    assert.doesNotMatch(
      answer(policyReview(clusterPolicy("bad", [rule, rule]))).response.status?.message ?? "",
      /bylaw fix/,
    );
  });
  test("policy warnings come with the answer", () => {
    const { response } = answer(policyReview(clusterPolicy("lower", [rule], { validationFailureAction: "audit" })));
    assert.equal(response.allowed, true);
    assert.equal(response.warnings?.length, 2);
    assert.equal(
      response.warnings?.[0],
      "spec.validationFailureAction: Validation failure actions enforce/audit are deprecated, use Enforce/Audit instead.",
    );
    assert.equal(response.warnings?.[1], CPOL_NOTICE);
  });
  test("anything else, and DELETE, is allowed as is", () => {
    assert.deepEqual(answer(reviewOf({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } })).response, {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
    });
    assert.deepEqual(
      answer(
        policyReview(null as unknown as JsonObject, { operation: "DELETE", oldObject: clusterPolicy("x", [rule]) }),
      ).response.allowed,
      true,
    );
  });
  test("a ClusterPolicy with rules nothing runs yet (generate, mutate-existing, keyless verifyImages) is admitted with a warning per rule and field, the text of its not-Ready condition", () => {
    const doc = clusterPolicy("half", [
      rule,
      {
        name: "gen",
        match: { any: [{ resources: { kinds: ["Namespace"] } }] },
        generate: { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "default", data: { data: {} } },
      },
      {
        name: "existing",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        mutate: {
          targets: [{ apiVersion: "v1", kind: "Secret", namespace: "default" }],
          patchStrategicMerge: { metadata: { labels: { a: "b" } } },
        },
      },
      {
        name: "keyless",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        verifyImages: [
          {
            imageReferences: ["ghcr.io/*"],
            mutateDigest: false,
            attestors: [{ entries: [{ keyless: { subject: "s", issuer: "https://issuer" } }] }],
          },
        ],
      },
    ]);
    const { response } = answer(policyReview(doc));
    assert.equal(response.allowed, true);
    const reasons = response.warnings ?? [];
    assert.equal(reasons.length, 4, reasons.join("\n"));
    assert.equal(reasons[3], CPOL_NOTICE);
    assert.match(reasons[0] ?? "", /^spec\.rules\[1\]\.generate: rule gen: Bylaw does not run generate rules here/);
    assert.match(
      reasons[1] ?? "",
      /^spec\.rules\[2\]\.mutate\.targets: rule existing: Bylaw does not run mutate-existing rules/,
    );
    assert.match(
      reasons[2] ?? "",
      /^spec\.rules\[3\]\.verifyImages: rule keyless: Bylaw cannot verify images with .*keyless/,
    );
  });
  test("Kyverno v1.19.0's notices, word for word (pkg/deprecations/deprecations.go as of kyverno/kyverno#16868; see policy-validate-handler.ts)", () => {
    const notice = (kind: string, replacement: string): string =>
      `${kind} (kyverno.io) is deprecated and will be removed in a future release; migrate to ${replacement} (policies.kyverno.io), see https://kyverno.io/docs/guides/migration-to-cel/`;
    const doc = {
      apiVersion: "kyverno.io/v2",
      kind: "CleanupPolicy",
      metadata: { name: "c", namespace: "t" },
      spec: {},
    };
    assert.deepEqual(answer(policyReview(doc)).response.warnings, [
      notice("CleanupPolicy", "NamespacedDeletingPolicy"),
    ]);
    assert.equal(
      CPOL_NOTICE,
      notice("ClusterPolicy", "ValidatingPolicy, MutatingPolicy, GeneratingPolicy or ImageValidatingPolicy"),
    );
    assert.equal(
      POL_NOTICE,
      notice(
        "Policy",
        "NamespacedValidatingPolicy, NamespacedMutatingPolicy, NamespacedGeneratingPolicy or NamespacedImageValidatingPolicy",
      ),
    );
  });
  test("a legacy cleanup kind gets the deprecation notice with its refusal (here: its CRD schema)", () => {
    const doc = { apiVersion: "kyverno.io/v2", kind: "ClusterCleanupPolicy", metadata: { name: "c" }, spec: {} };
    const { response } = answer(policyReview(doc));
    assert.equal(response.allowed, false);
    assert.match(response.status?.message ?? "", /spec\.(match|schedule): Required value/);
    assert.deepEqual(response.warnings, [
      "ClusterCleanupPolicy (kyverno.io) is deprecated and will be removed in a future release; migrate to DeletingPolicy (policies.kyverno.io), see https://kyverno.io/docs/guides/migration-to-cel/",
    ]);
  });
});

describe("policyvalidate: cleanup policies", () => {
  const CCPOL_NOTICE =
    "ClusterCleanupPolicy (kyverno.io) is deprecated and will be removed in a future release; migrate to DeletingPolicy (policies.kyverno.io), see https://kyverno.io/docs/guides/migration-to-cel/";
  const cleanup = (spec: JsonObject): JsonObject => ({
    apiVersion: "kyverno.io/v2",
    kind: "ClusterCleanupPolicy",
    metadata: { name: "tidy" },
    spec: { match: { any: [{ resources: { kinds: ["Pod"] } }] }, schedule: "0 * * * *", ...spec },
  });
  const cleanupReview = (doc: JsonObject): JsonObject =>
    reviewOf(doc, { resource: { group: "kyverno.io", version: "v2", resource: "clustercleanuppolicies" } });

  test("an invalid one is refused with Kyverno's reason first", () => {
    const { response } = answer(cleanupReview(cleanup({ schedule: "hourly" })));
    assert.equal(response.allowed, false);
    assert.equal(
      response.status?.message,
      'spec.schedule: Invalid value: "hourly": schedule spec in the cleanupPolicy is not in proper cron format',
    );
    assert.deepEqual(response.warnings, [CCPOL_NOTICE]);
  });
  test("a valid one is refused too: Bylaw does not run cleanup policies yet", () => {
    const { response } = answer(cleanupReview(cleanup({})));
    assert.equal(response.allowed, false);
    assert.equal(
      response.status?.message,
      "kyverno.io/v2 ClusterCleanupPolicy is not supported by Bylaw yet: Bylaw does not run cleanup policies (it has no cleanup controller yet), so tidy would never delete anything; it is refused rather than admitted and never run",
    );
    assert.deepEqual(response.warnings, [CCPOL_NOTICE]);
  });
  test("with the cleanup controller running (serve --cluster) a valid one is admitted; an invalid one still refused", () => {
    const fake = fakeDeps();
    const deps = { ...fake.deps, cleanupController: true };
    const valid = handlePolicyValidate(cleanupReview(cleanup({})), deps);
    assert.ok(valid.status === 200);
    assert.equal(valid.body.response.allowed, true);
    assert.deepEqual(valid.body.response.warnings, [CCPOL_NOTICE]);
    const invalid = handlePolicyValidate(cleanupReview(cleanup({ schedule: "hourly" })), deps);
    assert.ok(invalid.status === 200);
    assert.equal(invalid.body.response.allowed, false);
    assert.match(invalid.body.response.status?.message ?? "", /not in proper cron format/);
  });
  test("a namespaced CleanupPolicy over a cluster-wide kind is refused with Kyverno's reason, even with the controller running", () => {
    const fake = fakeDeps();
    const deps = { ...fake.deps, cleanupController: true };
    const doc = {
      ...cleanup({ match: { any: [{ resources: { kinds: ["ConfigMap", "Namespace"] } }] } }),
      kind: "CleanupPolicy",
      metadata: { name: "tidy", namespace: "tenant-a" },
    };
    const r = handlePolicyValidate(
      reviewOf(doc, { resource: { group: "kyverno.io", version: "v2", resource: "cleanuppolicies" } }),
      deps,
    );
    assert.ok(r.status === 200);
    assert.equal(r.body.response.allowed, false);
    assert.equal(
      r.body.response.status?.message,
      "spec.match.any[0].resources.kinds[1]: Forbidden: Cluster wide resource 'Namespace' not allowed in namespaced policy",
    );
  });
});

describe("policyvalidate: DeletingPolicy (issue 34 §3)", () => {
  const dpol = (spec: JsonObject, kind = "DeletingPolicy"): JsonObject =>
    reviewOf(
      {
        apiVersion: "policies.kyverno.io/v1",
        kind,
        metadata: { name: "old-pods", ...(kind.startsWith("Namespaced") ? { namespace: "team-a" } : {}) },
        spec: {
          schedule: "*/1 * * * *",
          matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }] },
          ...spec,
        },
      },
      { resource: { group: "policies.kyverno.io", version: "v1", resource: "deletingpolicies" } },
    );
  const run = (body: JsonObject, cleanupController: boolean) => {
    const fake = fakeDeps();
    const r = handlePolicyValidate(body, { ...fake.deps, cleanupController });
    assert.ok(r.status === 200);
    return r.body.response;
  };

  test("with the cleanup controller running a valid one (and a namespaced one) is admitted", () => {
    assert.equal(run(dpol({}), true).allowed, true);
    assert.equal(run(dpol({}, "NamespacedDeletingPolicy"), true).allowed, true);
  });

  test("without it a valid one is refused, naming what runs it", () => {
    const response = run(dpol({}), false);
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /^DeletingPolicy old-pods is not served: the cleanup controller runs DeletingPolicies on their schedule and it does not run here \(serve --cluster --cleanup-controller, or the cleanup component\); it is refused rather than admitted and never run$/,
    );
  });

  test("an invalid schedule or a condition that does not compile is denied, naming the field", () => {
    const schedule = run(dpol({ schedule: "hourly" }), true);
    assert.equal(schedule.allowed, false);
    assert.match(
      schedule.status?.message ?? "",
      /^spec\.schedule: DeletingPolicy old-pods: .*not in proper cron format/,
    );
    const cel = run(dpol({ conditions: [{ name: "c", expression: "object.metadata.name ==" }] }), true);
    assert.equal(cel.allowed, false);
    assert.match(
      cel.status?.message ?? "",
      /^spec\.conditions\[0\]\.expression: DeletingPolicy old-pods: .*compilation failed/,
    );
  });
});
