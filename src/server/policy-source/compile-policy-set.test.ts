/** A policy directory's documents compiled as one set: policies and PolicyExceptions together. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { compilePolicySet, describeProblem } from "./compile-policy-set.js";

const engine = createEngine(fakePorts());
const policy = clusterPolicy("require-labels", [
  {
    name: "check",
    match: { any: [{ resources: { kinds: ["Pod"] } }] },
    validate: { message: "m", pattern: { metadata: { labels: { app: "?*" } } } },
  },
]);
const exception = (spec: JsonObject): JsonObject => ({
  apiVersion: "kyverno.io/v2",
  kind: "PolicyException",
  metadata: { name: "allow", namespace: "team-a" },
  spec,
});
const goodSpec = {
  exceptions: [{ policyName: "require-labels", ruleNames: ["check"] }],
  match: { any: [{ resources: { kinds: ["Pod"] } }] },
};
const doc = (value: JsonObject, index = 0) => ({ source: "/p/set.yaml", index, line: 1 + index * 10, value });

describe("compilePolicySet with PolicyExceptions", () => {
  test("exceptions are compiled beside the policies", () => {
    const set = compilePolicySet([doc(policy), doc(exception(goodSpec), 1)], engine);
    assert.equal(set.ok, true);
    if (!set.ok) return;
    assert.deepEqual(
      set.policies.map((p) => p.name),
      ["require-labels"],
    );
    assert.deepEqual(
      set.exceptions.map((e) => e.key),
      ["team-a/allow"],
    );
  });

  test("an invalid exception rejects the set, naming file, document and field", () => {
    const set = compilePolicySet([doc(policy), doc(exception({ match: goodSpec.match }), 1)], engine);
    assert.equal(set.ok, false);
    if (set.ok) return;
    const lines = set.problems.map(describeProblem);
    assert.ok(
      lines.some((l) => l.startsWith("/p/set.yaml: document 2 (line 11)") && l.includes("spec.exceptions")),
      lines.join("\n"),
    );
  });

  test("a policies.kyverno.io PolicyException is loaded with the set; an invalid one refuses it, naming file, document and field", () => {
    const celException = (spec: JsonObject): JsonObject => ({
      apiVersion: "policies.kyverno.io/v1",
      kind: "PolicyException",
      metadata: { name: "ex", namespace: "team" },
      spec,
    });
    const good = compilePolicySet(
      [
        doc(policy),
        doc(
          celException({
            policyRefs: [{ kind: "ValidatingPolicy", name: "vp" }],
            matchConditions: [{ name: "mine", expression: "object.metadata.name == 'a'" }],
          }),
          1,
        ),
      ],
      engine,
    );
    assert.equal(good.ok, true);
    if (good.ok)
      assert.deepEqual(
        good.exceptions.map((e) => e.key),
        ["team/ex"],
      );
    const bad = compilePolicySet(
      [
        doc(policy),
        doc(
          celException({
            policyRefs: [{ kind: "ValidatingPolicy", name: "vp" }],
            matchConditions: [{ name: "mine", expression: "object.metadata.name ==" }],
          }),
          1,
        ),
      ],
      engine,
    );
    assert.equal(bad.ok, false);
    if (bad.ok) return;
    const lines = bad.problems.map(describeProblem);
    assert.ok(
      lines.some(
        (l) =>
          l.startsWith("/p/set.yaml: document 2") &&
          l.includes('spec.matchConditions[0].expression: Invalid value: "object.metadata.name ==": ERROR') &&
          l.includes("Syntax error"),
      ),
      lines.join("\n"),
    );
  });

  test("a GeneratingPolicy (or Namespaced) refuses the set, saying its generate controller runs only on policies from the cluster", () => {
    for (const kind of ["GeneratingPolicy", "NamespacedGeneratingPolicy"]) {
      const gpol = {
        apiVersion: "policies.kyverno.io/v1",
        kind,
        metadata: { name: "gp", namespace: "n" },
        spec: {
          matchConstraints: {
            resourceRules: [
              { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] },
            ],
          },
          generate: [{ expression: "true" }],
        },
      };
      const set = compilePolicySet([doc(policy), doc(gpol, 1)], engine);
      assert.equal(set.ok, false);
      if (set.ok) return;
      const lines = set.problems.map(describeProblem);
      assert.ok(
        lines.some(
          (l) =>
            l.startsWith("/p/set.yaml: document 2") &&
            l.includes(`${kind} gp is not served from a policy folder: the generate controller that runs it`) &&
            l.includes("apply it to the cluster instead"),
        ),
        lines.join("\n"),
      );
    }
  });

  test("a kind Bylaw does not run yet (VAP) refuses the set, naming file, document and kind", () => {
    for (const [apiVersion, kind] of [["admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"]] as const) {
      const set = compilePolicySet(
        [doc(policy), doc({ apiVersion, kind, metadata: { name: "x", namespace: "n" }, spec: {} }, 1)],
        engine,
      );
      assert.equal(set.ok, false);
      if (set.ok) return;
      const lines = set.problems.map(describeProblem);
      assert.ok(
        lines.some(
          (l) =>
            l.startsWith("/p/set.yaml: document 2") &&
            l.includes(`policy x: kind: `) &&
            l.includes(`${kind}`) &&
            l.includes("is not supported by Bylaw yet"),
        ),
        lines.join("\n"),
      );
    }
  });

  test("a DeletingPolicy (or Namespaced) refuses the set with the policy webhook's words: the cleanup controller runs it, and it does not run on a policy folder", () => {
    for (const kind of ["DeletingPolicy", "NamespacedDeletingPolicy"]) {
      const set = compilePolicySet(
        [
          doc(policy),
          doc({ apiVersion: "policies.kyverno.io/v1", kind, metadata: { name: "x", namespace: "n" }, spec: {} }, 1),
        ],
        engine,
      );
      assert.equal(set.ok, false);
      if (set.ok) return;
      assert.deepEqual(set.problems.map(describeProblem), [
        `/p/set.yaml: document 2 (line 11): policy x: kind: ${kind} x is not served: the cleanup controller runs DeletingPolicies on their schedule and it does not run here (serve --cluster --cleanup-controller, or the cleanup component)`,
      ]);
    }
  });

  test("a MutatingAdmissionPolicy refuses the set, naming the kind (a MutatingPolicy and an ImageValidatingPolicy are served); a ClusterPolicy with a generate or mutate-existing rule is served with a warning naming each rule", () => {
    const constraints = {
      resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
    };
    const mpol: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name: "add-labels" },
      spec: { failurePolicy: "Ignore", matchConstraints: constraints, mutations: [] },
    };
    const ivpol: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ImageValidatingPolicy",
      metadata: { name: "signed" },
      spec: {
        failurePolicy: "Ignore",
        matchConstraints: constraints,
        validationActions: ["Deny"],
        attestors: [],
        validations: [],
      },
    };
    const map: JsonObject = {
      apiVersion: "admissionregistration.k8s.io/v1beta1",
      kind: "MutatingAdmissionPolicy",
      metadata: { name: "signed" },
      spec: { failurePolicy: "Ignore", matchConstraints: constraints, mutations: [] },
    };
    assert.equal(compilePolicySet([doc(policy), doc(mpol, 1)], engine).ok, true);
    assert.equal(compilePolicySet([doc(policy), doc(ivpol, 1)], engine).ok, true);
    const refused = compilePolicySet([doc(policy), doc(map, 1)], engine);
    assert.equal(refused.ok, false);
    if (refused.ok) return;
    assert.deepEqual(refused.problems.map(describeProblem), [
      "/p/set.yaml: document 2 (line 11): policy signed: kind: admissionregistration.k8s.io/v1beta1 MutatingAdmissionPolicy is not supported by Bylaw yet; the webhook cannot enforce it: remove it from the policy folder until Bylaw runs it",
    ]);
    const generate: JsonObject = {
      apiVersion: "kyverno.io/v1",
      kind: "ClusterPolicy",
      metadata: { name: "background-work" },
      spec: {
        rules: [
          {
            name: "netpol",
            match: { any: [{ resources: { kinds: ["Namespace"] } }] },
            generate: {
              apiVersion: "v1",
              kind: "ConfigMap",
              name: "x",
              namespace: "{{request.object.metadata.name}}",
              data: { data: {} },
            },
          },
          {
            name: "label-existing",
            match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
            mutate: {
              targets: [{ apiVersion: "v1", kind: "Secret", namespace: "{{request.object.metadata.namespace}}" }],
              patchStrategicMerge: { metadata: { labels: { seen: "yes" } } },
            },
          },
        ],
      },
    };
    const set = compilePolicySet([doc(policy), doc(generate, 1)], engine);
    assert.equal(set.ok, true);
    if (!set.ok) return;
    assert.deepEqual(
      set.policies.map((p) => p.name),
      ["require-labels", "background-work"],
    );
    const lines = set.warnings.filter((w) => w.includes("background-work"));
    assert.equal(lines.length, 2, set.warnings.join("\n"));
    assert.match(
      lines[0] ?? "",
      /^\/p\/set\.yaml: document 2 \(line 11\): policy background-work: spec\.rules\[0\]\.generate: rule netpol: Bylaw does not run generate rules here/,
    );
    assert.match(
      lines[1] ?? "",
      /spec\.rules\[1\]\.mutate\.targets: rule label-existing: Bylaw does not run mutate-existing rules \(mutate\.targets\)/,
    );
  });

  test("a ValidatingPolicy compiles into the set; an invalid CEL expression refuses it, naming document, field and position", () => {
    const vp = (expression: string): JsonObject => ({
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "vp" },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
        },
        validations: [{ expression }],
      },
    });
    const good = compilePolicySet([doc(policy), doc(vp("has(object.metadata.labels)"), 1)], engine);
    assert.equal(good.ok, true);
    if (good.ok)
      assert.deepEqual(
        good.policies.map((p) => p.name),
        ["require-labels", "vp"],
      );
    const bad = compilePolicySet([doc(vp("object.metadata.labels +"), 1)], engine);
    assert.equal(bad.ok, false);
    if (bad.ok) return;
    const lines = bad.problems.map(describeProblem);
    assert.ok(
      lines.some((l) => l.startsWith("/p/set.yaml: document 2") && l.includes("spec.validations[0].expression")),
      lines.join("\n"),
    );
  });

  test("duplicates are keyed by group, kind, namespace and name: a ClusterPolicy and a ValidatingPolicy of one name both load; two ValidatingPolicies collide", () => {
    const vp = (name: string, apiVersion = "policies.kyverno.io/v1"): JsonObject => ({
      apiVersion,
      kind: "ValidatingPolicy",
      metadata: { name },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
        },
        validations: [{ expression: "true" }],
      },
    });
    const nvp = (namespace: string): JsonObject => ({
      ...vp("require-labels"),
      kind: "NamespacedValidatingPolicy",
      metadata: { name: "require-labels", namespace },
    });
    const both = compilePolicySet(
      [doc(policy), doc(vp("require-labels"), 1), doc(nvp("team-a"), 2), doc(nvp("team-b"), 3)],
      engine,
    );
    assert.equal(both.ok, true, both.ok ? "" : both.problems.map(describeProblem).join("\n"));
    if (both.ok)
      assert.deepEqual(
        both.policies.map((p) => p.name),
        ["require-labels", "require-labels", "require-labels", "require-labels"],
      );
    const twice = compilePolicySet([doc(vp("vp")), doc(vp("vp", "policies.kyverno.io/v1beta1"), 1)], engine);
    assert.equal(twice.ok, false);
    if (twice.ok) return;
    assert.deepEqual(twice.problems.map(describeProblem), [
      "/p/set.yaml: document 2 (line 11): policy vp: metadata.name: duplicate ValidatingPolicy vp: already defined in /p/set.yaml: document 1 (line 1)",
    ]);
    const nsTwice = compilePolicySet([doc(nvp("team-a")), doc(nvp("team-a"), 1)], engine);
    assert.equal(nsTwice.ok, false);
    if (!nsTwice.ok)
      assert.match(
        nsTwice.problems.map(describeProblem).join("\n"),
        /duplicate NamespacedValidatingPolicy team-a\/require-labels/,
      );
  });
});
