/**
 * A ValidatingPolicy's resourceRules match a custom resource, and its subresources, by the resource
 * the admission request names (as the API server and Kyverno match them): Bylaw knows no plural for
 * a custom kind, so before, such a request was answered as an error naming the kind.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";
import { handleValidate, type HandlerResult } from "./index.js";

function vpol(name: string, resource: string, expression: string): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name },
    spec: {
      validationActions: ["Deny"],
      matchConstraints: {
        resourceRules: [
          { apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: [resource] },
        ],
      },
      validations: [{ expression, message: `${name} says no` }],
    },
  };
}

function answer(body: JsonObject, policies: JsonObject[]): JsonObject {
  const fake = fakeDeps({
    policies,
    compile: (doc, engine) => {
      const c = compileCelPolicy(doc, engine);
      if (c.policy === undefined) throw new Error(JSON.stringify(c.problems));
      return c.policy;
    },
  });
  const r: HandlerResult = handleValidate(body, fake.deps, "fail");
  assert.equal(r.status, 200);
  if (r.status !== 200) throw new Error("unreachable");
  return r.body.response as unknown as JsonObject;
}

const widget = (size: number): JsonObject => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "default" },
  spec: { size, replicas: 1 },
});
const widgetKind = { kind: { group: "example.com", version: "v1", kind: "Widget" } };
const widgets = { resource: { group: "example.com", version: "v1", resource: "widgets" } };

test("a ValidatingPolicy on a custom resource's plural is evaluated: denied over the bound, admitted within it", () => {
  const policies = [vpol("small-widgets", "widgets", "object.spec.size <= 3")];
  const big = answer(reviewOf(widget(5), { ...widgetKind, ...widgets }), policies);
  assert.equal(big["allowed"], false, JSON.stringify(big));
  assert.match(JSON.stringify(big["status"]), /small-widgets says no/);
  assert.doesNotMatch(JSON.stringify(big["status"]), /not a built-in kind/);
  assert.equal(answer(reviewOf(widget(2), { ...widgetKind, ...widgets }), policies)["allowed"], true);
});

test("a ValidatingPolicy on a custom resource's scale subresource sees the Scale and decides it", () => {
  const scale: JsonObject = {
    apiVersion: "autoscaling/v1",
    kind: "Scale",
    metadata: { name: "w", namespace: "default" },
    spec: { replicas: 5 },
  };
  const review = reviewOf(scale, {
    operation: "UPDATE",
    oldObject: { ...scale, spec: { replicas: 1 } },
    kind: { group: "autoscaling", version: "v1", kind: "Scale" },
    ...widgets,
    subResource: "scale",
  });
  const policies = [vpol("widget-scale", "widgets/scale", "object.spec.replicas <= 3")];
  const denied = answer(review, policies);
  assert.equal(denied["allowed"], false, JSON.stringify(denied));
  assert.match(JSON.stringify(denied["status"]), /widget-scale says no/);
  const within = { ...scale, spec: { replicas: 2 } };
  const fine = reviewOf(within, {
    operation: "UPDATE",
    oldObject: scale,
    kind: { group: "autoscaling", version: "v1", kind: "Scale" },
    ...widgets,
    subResource: "scale",
  });
  assert.equal(answer(fine, policies)["allowed"], true);
  // A rule on the plural alone does not match the subresource, as resource rules read.
  assert.equal(answer(review, [vpol("widgets-only", "widgets", "false")])["allowed"], true);
});
