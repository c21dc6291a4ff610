/**
 * A subresource request's rules see the object the API server sent (Kyverno's policy context keeps
 * it): the Scale of `kubectl scale`, not a Deployment, while they are matched as `Deployment/scale`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { clusterPolicy } from "../../../test/support/builders.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";
import { handleMutate, handleValidate, type HandlerResult } from "./index.js";

const scale: JsonObject = {
  apiVersion: "autoscaling/v1",
  kind: "Scale",
  metadata: { name: "web", namespace: "default" },
  spec: { replicas: 5 },
};
const scaleReview = reviewOf(scale, {
  operation: "UPDATE",
  oldObject: { ...scale, spec: { replicas: 1 } },
  subResource: "scale",
  resource: { group: "apps", version: "v1", resource: "deployments" },
});

function response(r: HandlerResult): JsonObject {
  assert.equal(r.status, 200);
  if (r.status !== 200) throw new Error("unreachable");
  return r.body.response as unknown as JsonObject;
}

test("validate rules on Deployment/scale see the Scale: a pattern and a CEL expression read its own apiVersion and kind", () => {
  const sees = (name: string, validate: JsonObject): JsonObject =>
    clusterPolicy(name, [{ name, match: { any: [{ resources: { kinds: ["Deployment/scale"] } }] }, validate }], {
      validationFailureAction: "Enforce",
    });
  const pattern = sees("pattern", { message: "not a Scale", pattern: { apiVersion: "autoscaling/v1", kind: "Scale" } });
  const cel = sees("cel", {
    cel: {
      expressions: [
        { expression: "object.kind == 'Scale' && object.apiVersion == 'autoscaling/v1'", message: "not a Scale" },
      ],
    },
  });
  const bound = sees("bound", { message: "at most 3", pattern: { spec: { replicas: "<=3" } } });
  const allowed = response(handleValidate(scaleReview, fakeDeps({ policies: [pattern, cel] }).deps));
  assert.equal(allowed["allowed"], true, JSON.stringify(allowed));
  const denied = response(handleValidate(scaleReview, fakeDeps({ policies: [pattern, cel, bound] }).deps));
  assert.equal(denied["allowed"], false);
  assert.match(JSON.stringify(denied["status"]), /resource Scale\/default\/web was blocked.*bound:.*at most 3/);
});

test("a mutate rule on Deployment/scale patches spec.replicas only: the Scale's apiVersion and kind are not rewritten", () => {
  const policy = clusterPolicy("cap", [
    {
      name: "cap",
      match: { any: [{ resources: { kinds: ["Deployment/scale"] } }] },
      mutate: { patchStrategicMerge: { spec: { replicas: 2 } } },
    },
  ]);
  const answer = response(handleMutate(scaleReview, fakeDeps({ policies: [policy] }).deps));
  assert.equal(answer["allowed"], true);
  const encoded = answer["patch"];
  assert.equal(typeof encoded, "string");
  const patch = JSON.parse(Buffer.from(encoded as string, "base64").toString("utf8")) as JsonObject[];
  assert.deepEqual(patch, [{ op: "replace", path: "/spec/replicas", value: 2 }]);
});
