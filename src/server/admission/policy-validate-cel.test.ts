/** The policy webhook for the policies.kyverno.io kinds (policy-validate-cel.ts): compiled as served. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { handlePolicyValidate } from "./index.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";
import { textOf } from "../../engine/index.js";

const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
};
const review = (doc: JsonObject, resource: string, namespace?: string): JsonObject =>
  reviewOf(doc, {
    kind: { group: "policies.kyverno.io", version: "v1", kind: textOf(doc["kind"]) },
    resource: { group: "policies.kyverno.io", version: "v1", resource },
    ...(namespace !== undefined ? { namespace } : {}),
  });

function answer(body: JsonObject) {
  const r = handlePolicyValidate(body, fakeDeps().deps);
  assert.equal(r.status, 200);
  if (r.status !== 200) throw new Error("unreachable");
  return r.body.response;
}

const vp = (expression: string): JsonObject => ({
  apiVersion: "policies.kyverno.io/v1",
  kind: "ValidatingPolicy",
  metadata: { name: "vp" },
  spec: { matchConstraints: podRules, validations: [{ expression }] },
});

describe("policyvalidate: policies.kyverno.io kinds", () => {
  test("a valid ValidatingPolicy is allowed, without warnings", () => {
    assert.deepEqual(answer(review(vp("has(object.metadata.labels)"), "validatingpolicies")), {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
    });
  });

  test("an expression that does not compile is denied, naming the policy, the field and the position", () => {
    const response = answer(review(vp("object.metadata.labels +"), "validatingpolicies"));
    assert.equal(response.allowed, false);
    assert.match(response.status?.message ?? "", /vp.*spec\.validations\[0\]\.expression/);
  });

  test("a NamespacedValidatingPolicy with unusable matchConstraints is denied; the namespace comes from the request", () => {
    const doc: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "NamespacedValidatingPolicy",
      metadata: { name: "n" },
      spec: { matchConstraints: {}, validations: [{ expression: "true" }] },
    };
    const response = answer(review(doc, "namespacedvalidatingpolicies", "team-a"));
    assert.equal(response.allowed, false);
    assert.match(response.status?.message ?? "", /matchConstraints\.resourceRules/);
  });

  test("an ImageValidatingPolicy is admitted, one whose validation does not compile is denied naming the field; a GeneratingPolicy is refused naming the kind Bylaw does not serve (never half-served)", () => {
    const iv = (expression: string): JsonObject => ({
      apiVersion: "policies.kyverno.io/v1",
      kind: "ImageValidatingPolicy",
      metadata: { name: "iv" },
      spec: { matchConstraints: podRules, validationActions: ["Deny"], attestors: [], validations: [{ expression }] },
    });
    assert.equal(answer(review(iv("true"), "imagevalidatingpolicies")).allowed, true);
    const m = answer(review(iv("object.("), "imagevalidatingpolicies"));
    assert.equal(m.allowed, false);
    assert.match(
      m.status?.message ?? "",
      /ImageValidatingPolicy iv: failed to compile policy: spec\.validations\[0\]\.expression: Invalid value: /,
    );
    // A GeneratingPolicy is admitted (the background component runs it); one whose expression does not compile is denied naming it.
    const gp = (expression: string): JsonObject => ({
      apiVersion: "policies.kyverno.io/v1",
      kind: "GeneratingPolicy",
      metadata: { name: "gp" },
      spec: { matchConstraints: podRules, generate: [{ expression }] },
    });
    assert.equal(answer(review(gp('generator.Apply("a", [])'), "generatingpolicies")).allowed, true);
    const g = answer(review(gp("object.("), "generatingpolicies"));
    assert.equal(g.allowed, false);
    assert.match(g.status?.message ?? "", /GeneratingPolicy gp: spec.generate\[0\]/);
  });

  test("a MutatingPolicy is admitted; one whose mutation does not compile is denied naming the policy and the field", () => {
    const mp = (expression: string): JsonObject => ({
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name: "mp" },
      spec: {
        matchConstraints: podRules,
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression } }],
      },
    });
    assert.equal(
      answer(review(mp('Object{metadata: Object.metadata{labels: {"a": "b"}}}'), "mutatingpolicies")).allowed,
      true,
    );
    const bad = answer(review(mp("object.("), "mutatingpolicies"));
    assert.equal(bad.allowed, false);
    assert.match(
      bad.status?.message ?? "",
      /: MutatingPolicy mp: spec\.mutations\[0\]\.applyConfiguration\.expression: compilation failed/,
    );
  });

  test("a MutatingPolicy with mutateExisting is allowed (unserved-parts.ts keeps it not Ready where nothing runs its targets); targets from an expression are refused", () => {
    const mp: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name: "mp" },
      spec: {
        matchConstraints: podRules,
        evaluation: { mutateExisting: { enabled: true } },
        targetMatchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"] }],
        },
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }],
      },
    };
    const response = answer(review(mp, "mutatingpolicies"));
    assert.equal(response.allowed, true);
    const withExpression = {
      ...mp,
      spec: { ...(mp["spec"] as JsonObject), targetMatchConstraints: { expression: "[]" } },
    };
    const refused = answer(review(withExpression, "mutatingpolicies"));
    assert.equal(refused.allowed, false);
    assert.match(refused.status?.message ?? "", /spec\.targetMatchConstraints\.expression: output type must be a map/);
    const listing = {
      ...mp,
      spec: {
        ...(mp["spec"] as JsonObject),
        targetMatchConstraints: { expression: 'resource.List("v1", "configmaps", "default")' },
      },
    };
    assert.equal(answer(review(listing, "mutatingpolicies")).allowed, true);
  });

  test("a MutatingPolicy whose matchConstraints are unusable is denied with its own kind named", () => {
    const mp: JsonObject = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name: "mp" },
      spec: { mutations: [] },
    };
    const response = answer(review(mp, "mutatingpolicies"));
    assert.equal(response.allowed, false);
    assert.match(response.status?.message ?? "", /MutatingPolicy mp: spec\.matchConstraints\.resourceRules/);
  });
});

describe("policyvalidate: policies.kyverno.io PolicyException", () => {
  const polex = (spec: JsonObject): JsonObject => ({
    apiVersion: "policies.kyverno.io/v1beta1",
    kind: "PolicyException",
    metadata: { name: "allow-batch" },
    spec,
  });
  const refs = [{ kind: "ValidatingPolicy", name: "vp" }];

  test("a valid one is allowed (the namespace comes from the request)", () => {
    const response = answer(
      review(
        polex({
          policyRefs: refs,
          matchConditions: [{ name: "batch", expression: "object.metadata.name.startsWith('batch-')" }],
        }),
        "policyexceptions",
        "team-a",
      ),
    );
    assert.equal(response.allowed, true);
  });

  test("a matchConditions expression that does not compile is denied, naming the exception, the field and the position", () => {
    const response = answer(
      review(
        polex({ policyRefs: refs, matchConditions: [{ name: "bad", expression: "object.metadata.name ==" }] }),
        "policyexceptions",
        "team-a",
      ),
    );
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /^PolicyException allow-batch: spec\.matchConditions\[0\]\.expression: Invalid value: "object\.metadata\.name ==": ERROR: <input>:1:24: Syntax error/,
    );
    const notBool = answer(
      review(
        polex({ policyRefs: refs, matchConditions: [{ name: "flag", expression: "object.spec.flag" }] }),
        "policyexceptions",
        "team-a",
      ),
    );
    assert.equal(notBool.allowed, false);
    assert.equal(
      notBool.status?.message,
      'PolicyException allow-batch: spec.matchConditions[0].expression: Invalid value: "object.spec.flag": output is expected to be of type bool',
    );
  });

  test("one without policyRefs is denied with the field", () => {
    const response = answer(review(polex({}), "policyexceptions", "team-a"));
    assert.equal(response.allowed, false);
    assert.match(response.status?.message ?? "", /spec\.policyRefs: Required value/);
  });
});

describe("policyvalidate: tenant-isolation rule 3, no globalContext from a namespaced document", () => {
  const namespacedKind = (kind: string, spec: JsonObject): JsonObject => ({
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "reader", namespace: "tenant-a" },
    spec,
  });

  test("a NamespacedValidatingPolicy naming globalContext in a variable or a messageExpression is denied, with the field", () => {
    const response = answer(
      review(
        namespacedKind("NamespacedValidatingPolicy", {
          matchConstraints: podRules,
          variables: [{ name: "cfg", expression: 'globalContext.Get("admin-entry", "")' }],
          validations: [{ expression: "false", messageExpression: "string(globalContext.get('admin-entry'))" }],
        }),
        "namespacedvalidatingpolicies",
        "tenant-a",
      ),
    );
    assert.equal(response.allowed, false);
    assert.match(response.status?.message ?? "", /spec\.variables\[0\]\.expression: .*globalContext is not allowed/);
    assert.match(response.status?.message ?? "", /spec\.validations\[0\]\.messageExpression: /);
  });

  test("the namespaced kinds Bylaw does not evaluate yet are refused too; a cluster-wide ValidatingPolicy may read it", () => {
    for (const [kind, resource] of [
      ["NamespacedMutatingPolicy", "namespacedmutatingpolicies"],
      ["NamespacedGeneratingPolicy", "namespacedgeneratingpolicies"],
    ] as const) {
      const response = answer(
        review(
          namespacedKind(kind, { matchConditions: [{ name: "g", expression: "globalContext.Get('x') != null" }] }),
          resource,
          "tenant-a",
        ),
      );
      assert.equal(response.allowed, false, kind);
      assert.match(response.status?.message ?? "", /spec\.matchConditions\[0\]\.expression: .*globalContext/);
    }
    assert.equal(answer(review(vp("globalContext.Get('x', '') != null"), "validatingpolicies")).allowed, true);
  });

  test("a PolicyException in a namespace whose matchConditions name globalContext is denied", () => {
    const response = answer(
      review(
        {
          apiVersion: "policies.kyverno.io/v1beta1",
          kind: "PolicyException",
          metadata: { name: "peek" },
          spec: {
            policyRefs: [{ kind: "ValidatingPolicy", name: "vp" }],
            matchConditions: [{ name: "peek", expression: "globalContext.Get('admin-entry', 'x') == 'y'" }],
          },
        },
        "policyexceptions",
        "tenant-a",
      ),
    );
    assert.equal(response.allowed, false);
    assert.match(
      response.status?.message ?? "",
      /^PolicyException peek: spec\.matchConditions\[0\]\.expression: .*globalContext is not allowed/,
    );
  });
});
