import { test } from "node:test";
import assert from "node:assert/strict";
import { topLevelKind } from "./top-level-kind.js";
import type { AdmissionRequestJson } from "./types.js";

const request = (group: string, resource: string, subResource: string, kind: string): AdmissionRequestJson => ({
  uid: "u",
  kind: { group: kind === "Scale" ? "autoscaling" : "policy", version: "v1", kind },
  resource: { group, version: "v1", resource },
  subResource,
  operation: "UPDATE",
  userInfo: { username: "", groups: [] },
});

test("a built-in parent is found by its group and plural though no policy names its kind (a ValidatingPolicy on deployments/scale)", () => {
  assert.deepEqual(topLevelKind(request("apps", "deployments", "scale", "Scale"), "Scale", []), {
    group: "apps",
    version: "v1",
    kind: "Deployment",
  });
  assert.deepEqual(topLevelKind(request("", "pods", "eviction", "Eviction"), "Eviction", []), {
    group: "",
    version: "v1",
    kind: "Pod",
  });
});

test("a plural of another group is not a built-in kind; without a policy naming it the object's kind stays", () => {
  assert.equal(topLevelKind(request("example.com", "deployments", "scale", "Scale"), "Scale", []), undefined);
  assert.equal(topLevelKind(request("apps", "deployments", "", "Deployment"), "Deployment", []), undefined);
});
