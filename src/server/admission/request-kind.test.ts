/** The kind a review is matched as is the AdmissionRequest's (`request.kind`), not what the object's body claims. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";
import { handleMutate, handleValidate, type HandlerResult } from "./index.js";
import { fakeDeps, reviewOf } from "../../../test/support/fake-admission-deps.js";

const noPrivileged = clusterPolicy(
  "no-privileged",
  [
    {
      name: "privileged",
      match: { any: [{ resources: { kinds: ["Pod"] } }] },
      validate: {
        message: "privileged containers are not allowed",
        pattern: { spec: { containers: [{ "=(securityContext)": { "=(privileged)": false } }] } },
      },
    },
  ],
  { validationFailureAction: "Enforce" },
);

const privilegedPod = (kind: string): JsonObject => ({
  ...pod({ name: "root", containers: [{ name: "c", image: "nginx:1.27", securityContext: { privileged: true } }] }),
  kind,
});

const asPod = {
  kind: { group: "", version: "v1", kind: "Pod" },
  resource: { group: "", version: "v1", resource: "pods" },
};
const asConfigMap = {
  kind: { group: "", version: "v1", kind: "ConfigMap" },
  resource: { group: "", version: "v1", resource: "configmaps" },
};

function response(r: HandlerResult): { allowed: boolean; patch?: string; status?: { message: string } } {
  assert.equal(r.status, 200);
  return (r.body as { response: { allowed: boolean; patch?: string; status?: { message: string } } }).response;
}

describe("the matched kind comes from request.kind", () => {
  test("a Pod review whose object says kind: ConfigMap is matched as a Pod, and denied", () => {
    const { deps } = fakeDeps({ policies: [noPrivileged] });
    const answer = response(handleValidate(reviewOf(privilegedPod("ConfigMap"), asPod), deps, "fail"));
    assert.equal(answer.allowed, false, "the body's kind must not take the Pod out of the policy's match");
    assert.match(
      answer.status?.message ?? "",
      /no-privileged:\n {2}privileged: 'validation error: privileged containers are not allowed/,
    );
  });

  test("an object that claims kind: Pod in a ConfigMap review is not matched as a Pod", () => {
    const { deps } = fakeDeps({ policies: [noPrivileged] });
    assert.equal(response(handleValidate(reviewOf(privilegedPod("Pod"), asConfigMap), deps, "fail")).allowed, true);
  });

  test("an object without apiVersion or kind is matched as the request's kind", () => {
    const { deps } = fakeDeps({ policies: [noPrivileged] });
    const bare = privilegedPod("Pod");
    delete bare["kind"];
    delete bare["apiVersion"];
    assert.equal(response(handleValidate(reviewOf(bare, asPod), deps, "fail")).allowed, false);
  });

  test("mutation matches by request.kind too", () => {
    const addLabel = clusterPolicy("add-owner", [
      {
        name: "owner",
        match: { any: [{ resources: { kinds: ["Pod"] } }] },
        mutate: { patchStrategicMerge: { metadata: { labels: { owner: "platform" } } } },
      },
    ]);
    const { deps } = fakeDeps({ policies: [addLabel] });
    const answer = response(handleMutate(reviewOf(privilegedPod("ConfigMap"), asPod), deps, "fail"));
    assert.equal(answer.allowed, true);
    const patch = JSON.parse(Buffer.from(answer.patch ?? "", "base64").toString("utf8")) as unknown[];
    assert.ok(
      patch.some((op) => JSON.stringify(op).includes("platform")),
      `the Pod is patched: ${JSON.stringify(patch)}`,
    );
  });
});
