/** A namespace the cluster facts do not know: rules selecting by its labels answer as errors, never as "no labels". */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { clusterFactsView, parseClusterFacts } from "../policy-source/cluster-facts.js";
import { handleMutate, handleValidate, type HandlerResult } from "./index.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const facts = (() => {
  const parsed = parseClusterFacts({
    apiVersion: "bylaw.dev/v1alpha1",
    kind: "ClusterFacts",
    namespaces: { prod: { labels: { env: "production" } }, dev: { labels: { env: "dev" } } },
  });
  if (!parsed.ok) throw new Error("bad facts");
  return clusterFactsView(parsed.facts);
})();

const inProduction = (selector: JsonObject, spec: JsonObject = { validationFailureAction: "Enforce" }): JsonObject =>
  clusterPolicy(
    "prod-needs-team",
    [
      {
        name: "team",
        match: { any: [{ resources: { kinds: ["Pod"], namespaceSelector: selector } }] },
        validate: { message: "label team is required", pattern: { metadata: { labels: { team: "?*" } } } },
      },
    ],
    spec,
  );

const production = { matchLabels: { env: "production" } };

function run(
  policy: JsonObject,
  namespace: string,
  o: {
    readonly mode?: "fail" | "ignore";
    readonly indexCandidates?: boolean;
    readonly labels?: Record<string, string>;
  } = {},
): { allowed: boolean; message: string; warnings: readonly string[] } {
  const fake = fakeDeps({ policies: [policy] });
  const deps = { ...fake.deps, cluster: facts, indexCandidates: o.indexCandidates ?? true };
  const subject = pod({ name: "web", namespace, ...(o.labels !== undefined ? { labels: o.labels } : {}) });
  const result: HandlerResult = handleValidate(reviewOf(subject), deps, o.mode ?? "fail");
  assert.equal(result.status, 200);
  const response = (
    result.body as { response: { allowed: boolean; status?: { message: string }; warnings?: readonly string[] } }
  ).response;
  return { allowed: response.allowed, message: response.status?.message ?? "", warnings: response.warnings ?? [] };
}

describe("namespace labels the cluster facts do not know", () => {
  test("a namespaceSelector rule in an unknown namespace is an error: denied under failurePolicy Fail, naming the namespace and the field", () => {
    const r = run(inProduction(production), "prod-2");
    assert.equal(r.allowed, false, "an unknown namespace must not read as one without labels");
    assert.match(
      r.message,
      /team: 'bylaw: namespace "prod-2" is not in the cluster facts, so its labels are unknown, and rule team selects by namespace labels \(match\.any\[0\]\.resources\.namespaceSelector\); add the namespace/,
    );
  });

  test("under failurePolicy Ignore the error lets the request through", () => {
    assert.equal(
      run(inProduction(production, { validationFailureAction: "Enforce", failurePolicy: "Ignore" }), "prod-2", {
        mode: "ignore",
      }).allowed,
      true,
    );
  });

  test("known namespaces are evaluated with their labels", () => {
    assert.equal(
      run(inProduction(production), "prod").allowed,
      false,
      "prod has env=production: the rule applies and fails",
    );
    assert.equal(run(inProduction(production), "dev").allowed, true, "dev does not match the selector");
  });

  test("a selector on kubernetes.io/metadata.name alone needs no facts", () => {
    const byName = { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["prod-2"] }] };
    const r = run(inProduction(byName), "prod-2");
    assert.equal(r.allowed, false);
    assert.match(r.message, /validation error: label team is required/, "evaluated, not an error");
  });

  test("a failure-action override selecting by namespace labels makes the validate rule need them", () => {
    const policy = clusterPolicy(
      "audit-but-enforce-in-prod",
      [
        {
          name: "team",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { message: "label team is required", pattern: { metadata: { labels: { team: "?*" } } } },
        },
      ],
      {
        validationFailureAction: "Audit",
        validationFailureActionOverrides: [{ action: "Enforce", namespaceSelector: production }],
      },
    );
    const r = run(policy, "prod-2");
    assert.equal(r.allowed, false, "whether the rule enforces depends on labels Bylaw does not have");
    assert.match(r.message, /spec\.validationFailureActionOverrides\[0\]\.namespaceSelector/);
  });

  test("a rule whose kinds cannot match the request is not an error", () => {
    const deployments = clusterPolicy(
      "deployments-in-prod",
      [
        {
          name: "team",
          match: { any: [{ resources: { kinds: ["Deployment"], namespaceSelector: production } }] },
          validate: { message: "team", pattern: { metadata: { labels: { team: "?*" } } } },
        },
      ],
      { validationFailureAction: "Enforce" },
    );
    assert.equal(run(deployments, "prod-2").allowed, true);
  });

  test("a rule whose operations or policy namespace rule the request out needs no labels, with the candidate index or without", () => {
    const onUpdate = clusterPolicy(
      "prod-pods-on-update",
      [
        {
          name: "team",
          match: { any: [{ resources: { kinds: ["Pod"], operations: ["UPDATE"], namespaceSelector: production } }] },
          validate: { message: "team", pattern: { metadata: { labels: { team: "?*" } } } },
        },
      ],
      { validationFailureAction: "Enforce" },
    );
    const otherNamespace: JsonObject = {
      ...inProduction(production),
      kind: "Policy",
      metadata: { name: "prod-needs-team", namespace: "prod" },
    };
    for (const indexCandidates of [true, false]) {
      assert.equal(run(onUpdate, "prod-2", { indexCandidates }).allowed, true, "a CREATE cannot match an UPDATE rule");
      assert.equal(
        run(otherNamespace, "prod-2", { indexCandidates }).allowed,
        true,
        "a Policy of prod matches nothing in prod-2",
      );
      // The same rule on the operation, and the Policy in the request's own namespace, cannot be decided.
      const onCreate = clusterPolicy(
        "prod-pods-on-create",
        [
          {
            name: "team",
            match: {
              any: [{ resources: { kinds: ["Pod"], operations: ["CREATE"], namespaceSelector: production } }],
            },
            validate: { message: "team", pattern: { metadata: { labels: { team: "?*" } } } },
          },
        ],
        { validationFailureAction: "Enforce" },
      );
      assert.match(
        run(onCreate, "prod-2", { indexCandidates }).message,
        /namespace "prod-2" is not in the cluster facts/,
      );
      const sameNamespace = { ...otherNamespace, metadata: { name: "prod-needs-team", namespace: "prod-2" } };
      assert.match(
        run(sameNamespace, "prod-2", { indexCandidates }).message,
        /namespace "prod-2" is not in the cluster facts/,
      );
    }
  });

  test("a rule whose namespaces or names patterns or selector keys rule the request out needs no labels, with the candidate index or without", () => {
    const gated = (name: string, resources: JsonObject): JsonObject =>
      clusterPolicy(
        name,
        [
          {
            name: "team",
            match: { any: [{ resources: { kinds: ["Pod"], namespaceSelector: production, ...resources } }] },
            validate: { message: "team", pattern: { metadata: { labels: { team: "?*" } } } },
          },
        ],
        { validationFailureAction: "Enforce" },
      );
    for (const indexCandidates of [true, false]) {
      // The review's Pod is "web" in prod-2, a namespace the facts do not know.
      assert.equal(run(gated("ns", { namespaces: ["staging-*"] }), "prod-2", { indexCandidates }).allowed, true);
      assert.equal(run(gated("names", { names: ["db-*"] }), "prod-2", { indexCandidates }).allowed, true);
      const tierDb = { selector: { matchLabels: { tier: "db" } } };
      assert.equal(run(gated("selector", tierDb), "prod-2", { indexCandidates }).allowed, true);
      // Patterns the request meets leave the labels to decide: an error names them.
      for (const resources of [{ namespaces: ["prod-*"] }, { names: ["we?"] }, tierDb])
        assert.match(
          run(gated("met", resources), "prod-2", { indexCandidates, labels: { tier: "db" } }).message,
          /namespace "prod-2" is not in the cluster facts/,
        );
    }
  });

  test("the other rules of the policy are still evaluated", () => {
    const policy = clusterPolicy(
      "two-rules",
      [
        {
          name: "team",
          match: { any: [{ resources: { kinds: ["Pod"], namespaceSelector: production } }] },
          validate: { message: "team", pattern: { metadata: { labels: { team: "?*" } } } },
        },
        {
          name: "app",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { message: "label app is required", pattern: { metadata: { labels: { app: "?*" } } } },
        },
      ],
      { validationFailureAction: "Enforce" },
    );
    const r = run(policy, "prod-2");
    assert.match(r.message, /app: 'validation error: label app is required/);
    assert.match(r.message, /team: 'bylaw: namespace "prod-2" is not in the cluster facts/);
  });

  test("a mutate rule selecting by namespace labels is an error too: denied under Fail", () => {
    const policy = clusterPolicy("label-prod", [
      {
        name: "owner",
        match: { any: [{ resources: { kinds: ["Pod"], namespaceSelector: production } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { owner: "platform" } } } },
      },
    ]);
    const fake = fakeDeps({ policies: [policy] });
    const result = handleMutate(
      reviewOf(pod({ name: "web", namespace: "prod-2" })),
      { ...fake.deps, cluster: facts },
      "fail",
    );
    const response = (result.body as { response: { allowed: boolean; status?: { message: string } } }).response;
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /mutation policy label-prod error: .*namespace "prod-2" is not in the cluster facts/,
    );
  });
});

describe("namespace labels the cluster facts do not know, for the CEL kinds", () => {
  const pods = { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] };
  const mutating = (selector: JsonObject, resources: JsonObject = pods): JsonObject => ({
    apiVersion: "policies.kyverno.io/v1",
    kind: "MutatingPolicy",
    metadata: { name: "owner-in-prod" },
    spec: {
      matchConstraints: { resourceRules: [resources], namespaceSelector: selector },
      mutations: [
        {
          patchType: "ApplyConfiguration",
          applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"owner": "platform"}}}' },
        },
      ],
    },
  });
  const mutate = (policy: JsonObject, namespace: string): { allowed: boolean; message: string; patch?: string } => {
    const fake = fakeDeps({ policies: [policy] });
    const result = handleMutate(reviewOf(pod({ name: "web", namespace })), { ...fake.deps, cluster: facts }, "fail");
    assert.equal(result.status, 200);
    const response = (result.body as { response: { allowed: boolean; status?: { message: string }; patch?: string } })
      .response;
    return {
      allowed: response.allowed,
      message: response.status?.message ?? "",
      ...(response.patch !== undefined ? { patch: response.patch } : {}),
    };
  };

  test("a MutatingPolicy whose matchConstraints select by namespace labels is an error in an unknown namespace, as a ClusterPolicy rule is", () => {
    const r = mutate(mutating(production), "prod-2");
    assert.equal(r.allowed, false, "an unknown namespace must not read as one without labels (a silent pass)");
    assert.match(
      r.message,
      /owner-in-prod.*namespace "prod-2" is not in the cluster facts, so its labels are unknown, and policy owner-in-prod selects by namespace labels \(spec\.matchConstraints\.namespaceSelector\)/,
    );
  });

  test("a MutatingPolicy in a known namespace is decided with its labels", () => {
    const prod = mutate(mutating(production), "prod");
    assert.equal(prod.allowed, true);
    assert.ok(prod.patch !== undefined, "prod has env=production: the policy patches");
    const dev = mutate(mutating(production), "dev");
    assert.equal(dev.allowed, true);
    assert.equal(dev.patch, undefined, "dev does not match the selector");
  });

  test("a MutatingPolicy whose resourceRules cannot match the request needs no labels", () => {
    const configMaps = { ...pods, resources: ["configmaps"] };
    const r = mutate(mutating(production, configMaps), "prod-2");
    assert.equal(r.allowed, true);
    assert.equal(r.patch, undefined);
  });

  test("a selector on kubernetes.io/metadata.name alone needs no facts", () => {
    const byName = { matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values: ["prod-2"] }] };
    const r = mutate(mutating(byName), "prod-2");
    assert.equal(r.allowed, true);
    assert.ok(r.patch !== undefined, "evaluated with the name label: it matches and patches");
  });

  test("a ValidatingPolicy whose matchConstraints select by namespace labels is an error in an unknown namespace", () => {
    const policy: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "ValidatingPolicy",
      metadata: { name: "team-in-prod" },
      spec: {
        matchConstraints: { resourceRules: [pods], namespaceSelector: production },
        validations: [
          { expression: "has(object.metadata.labels) && 'team' in object.metadata.labels", message: "team" },
        ],
      },
    };
    const r = run(policy, "prod-2");
    assert.equal(r.allowed, false);
    assert.match(
      r.message,
      /namespace "prod-2" is not in the cluster facts, so its labels are unknown, and policy team-in-prod selects by namespace labels \(spec\.matchConstraints\.namespaceSelector\)/,
    );
    assert.equal(run(policy, "dev").allowed, true, "dev does not match the selector");
  });
});
