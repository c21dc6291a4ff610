/** ValidatingPolicy (policies.kyverno.io) through the validating webhook: Kyverno's vpol answers. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { pod } from "../../../test/support/builders.js";
import { handleValidate, type HandlerResult } from "./index.js";
import { fakeDeps, reviewOf, type FakeSetup } from "../../../test/support/fake-admission-deps.js";

const podRules = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] }],
};
function vp(name: string, spec: JsonObject): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name },
    spec: {
      matchConstraints: podRules,
      validations: [
        {
          expression: "has(object.metadata.labels) && 'app' in object.metadata.labels",
          message: "label app is required",
        },
      ],
      ...spec,
    },
  };
}
const labelled = pod({ name: "nginx", labels: { app: "web" } });
const unlabelled = pod({ name: "nginx", labels: { team: "a" } });

function run(setup: FakeSetup, body: JsonObject, mode?: "fail" | "ignore") {
  const fake = fakeDeps(setup);
  const r: HandlerResult = handleValidate(body, fake.deps, mode);
  assert.equal(r.status, 200);
  if (r.status !== 200) throw new Error("unreachable");
  return { ...fake, response: r.body.response };
}

describe("validate webhook: ValidatingPolicy", () => {
  test("Deny: a failed validation is denied with Kyverno's vpol text", () => {
    const { response } = run({ policies: [vp("require-app", { validationActions: ["Deny"] })] }, reviewOf(unlabelled));
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, "Policy require-app failed: label app is required");
  });

  test("no validationActions means Deny; a passing object is allowed without warnings", () => {
    assert.equal(run({ policies: [vp("require-app", {})] }, reviewOf(unlabelled)).response.allowed, false);
    assert.deepEqual(run({ policies: [vp("require-app", {})] }, reviewOf(labelled)).response, {
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      allowed: true,
    });
  });

  test("two denying policies: their errors joined by '; '", () => {
    const other = vp("require-tier", {
      validations: [
        {
          expression: "'tier' in object.metadata.labels",
          messageExpression: "'tier missing on ' + object.metadata.name",
        },
      ],
    });
    const { response } = run({ policies: [vp("require-app", {}), other] }, reviewOf(unlabelled));
    assert.equal(
      response.status?.message,
      "Policy require-app failed: label app is required; Policy require-tier failed: tier missing on nginx",
    );
  });

  test("Warn: allowed with Kyverno's warning; Audit: allowed, recorded, no warning", () => {
    const warned = run(
      { policies: [vp("require-app", { validationActions: ["Warn"] })] },
      reviewOf(unlabelled),
    ).response;
    assert.equal(warned.allowed, true);
    assert.deepEqual(warned.warnings, ["Policy require-app failed: label app is required"]);
    const audited = run({ policies: [vp("require-app", { validationActions: ["Audit"] })] }, reviewOf(unlabelled));
    assert.equal(audited.response.allowed, true);
    assert.equal(audited.response.warnings, undefined);
    assert.ok(
      audited.results.some((r) => r.policy.name === "require-app" && r.result === "fail"),
      JSON.stringify(audited.results.map((r) => r.result)),
    );
  });

  test("Deny and Warn together: denied, the warning answered too is not lost from the denial text", () => {
    const { response } = run(
      { policies: [vp("require-app", { validationActions: ["Deny", "Warn"] })] },
      reviewOf(unlabelled),
    );
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, "Policy require-app failed: label app is required");
  });

  test("an evaluation error is denied under failurePolicy Fail and allowed under Ignore", () => {
    const broken = { validations: [{ expression: "object.metadata.labels['missing'] == 'x'" }] };
    const fail = run(
      { policies: [vp("p", { ...broken, failurePolicy: "Fail" })] },
      reviewOf(unlabelled),
      "fail",
    ).response;
    assert.equal(fail.allowed, false);
    assert.match(fail.status?.message ?? "", /^Policy p error: error: .*missing/);
    const ignore = run(
      { policies: [vp("p", { ...broken, failurePolicy: "Ignore" })] },
      reviewOf(unlabelled),
      "ignore",
    ).response;
    assert.equal(ignore.allowed, true);
  });

  test("served by the webhook of its failurePolicy only", () => {
    const policies = [vp("p", { failurePolicy: "Ignore" })];
    assert.equal(run({ policies }, reviewOf(unlabelled), "fail").response.allowed, true);
    assert.equal(run({ policies }, reviewOf(unlabelled), "ignore").response.allowed, false);
  });

  test("evaluation.admission.enabled false: not evaluated in admission", () => {
    const { response, results } = run(
      { policies: [vp("p", { evaluation: { admission: { enabled: false } } })] },
      reviewOf(unlabelled),
    );
    assert.equal(response.allowed, true);
    assert.equal(results.length, 0);
  });

  test("matchConditions false: skipped; matchConstraints not matching: not evaluated", () => {
    const skipped = run(
      {
        policies: [
          vp("p", { matchConditions: [{ name: "only-prod", expression: "object.metadata.namespace == 'prod'" }] }),
        ],
      },
      reviewOf(unlabelled),
    ).response;
    assert.equal(skipped.allowed, true);
    const cm: JsonObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } };
    assert.equal(
      run(
        { policies: [vp("p", {})] },
        reviewOf(cm, {
          kind: { group: "", version: "v1", kind: "ConfigMap" },
          resource: { group: "", version: "v1", resource: "configmaps" },
        }),
      ).response.allowed,
      true,
    );
  });

  test("autogen: a Deployment without the label in its pod template is denied", () => {
    const deployment: JsonObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "default" },
      spec: {
        selector: { matchLabels: { a: "b" } },
        template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
      },
    };
    const review = reviewOf(deployment, {
      kind: { group: "apps", version: "v1", kind: "Deployment" },
      resource: { group: "apps", version: "v1", resource: "deployments" },
    });
    const { response } = run({ policies: [vp("require-app", {})] }, review);
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, "Policy require-app failed: label app is required");
  });
  test("a policies.kyverno.io PolicyException from the policy folder admits the request it matches; --exception-namespace limits where they count", () => {
    const exception = {
      apiVersion: "policies.kyverno.io/v1",
      kind: "PolicyException",
      metadata: { name: "nginx-ok", namespace: "exceptions" },
      spec: {
        policyRefs: [{ kind: "ValidatingPolicy", name: "require-app" }],
        matchConditions: [{ name: "nginx", expression: "object.metadata.name == 'nginx'" }],
      },
    };
    const excepted = run(
      { policies: [vp("require-app", { validationActions: ["Deny"] })], exceptions: [exception] },
      reviewOf(unlabelled),
    );
    assert.equal(excepted.response.allowed, true);
    assert.ok(
      excepted.results.some((r) => r.rule === "exception" && r.result === "skip"),
      JSON.stringify(excepted.results.map((r) => [r.rule, r.result])),
    );
    assert.equal(
      run(
        {
          policies: [vp("require-app", { validationActions: ["Deny"] })],
          exceptions: [exception],
          exceptionNamespaces: ["elsewhere"],
        },
        reviewOf(unlabelled),
      ).response.allowed,
      false,
    );
    assert.equal(
      run(
        { policies: [vp("require-app", { validationActions: ["Deny"] })], exceptions: [exception] },
        reviewOf(pod({ name: "other", labels: { team: "a" } })),
      ).response.allowed,
      false,
    );
  });

  test("namespaceObject is the Namespace the cluster holds (annotations too), as Kyverno's webhook reads it", () => {
    const byAnnotation = vp("team-annotated", {
      validations: [
        {
          expression: "namespaceObject.metadata.?annotations['team'].orValue('') == 'a'",
          message: "the namespace is not team a's",
        },
      ],
    });
    const inShop = reviewOf({ ...labelled, metadata: { name: "nginx", namespace: "shop", labels: { app: "web" } } });
    const shop = (team: string): JsonObject => ({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "shop", labels: { "kubernetes.io/metadata.name": "shop" }, annotations: { team } },
    });
    const allowed = run({ policies: [byAnnotation], namespaceObjects: { shop: shop("a") } }, inShop).response;
    assert.equal(allowed.allowed, true, JSON.stringify(allowed));
    const denied = run({ policies: [byAnnotation], namespaceObjects: { shop: shop("b") } }, inShop).response;
    assert.equal(denied.status?.message, "Policy team-annotated failed: the namespace is not team a's");
    // Facts without the object: the engine's Namespace from name and labels has no annotations.
    const built = run({ policies: [byAnnotation], namespaces: { shop: {} } }, inShop).response;
    assert.equal(built.allowed, false);
  });
});
