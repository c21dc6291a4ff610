import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { kindSelectorMatches, parseKindSelector } from "./kind-selector.js";

describe("parseKindSelector", () => {
  const cases: [string, [string, string, string, string]][] = [
    ["Pod", ["*", "*", "Pod", ""]],
    ["*", ["*", "*", "*", ""]],
    ["*/*", ["*", "*", "*", "*"]],
    ["*/status", ["*", "*", "*", "status"]],
    ["*/Pod", ["*", "*", "Pod", ""]],
    ["v1/Pod", ["*", "v1", "Pod", ""]],
    ["v1beta1/CronJob", ["*", "v1beta1", "CronJob", ""]],
    ["v2alpha1/Thing", ["*", "v2alpha1", "Thing", ""]],
    ["Pod/status", ["*", "*", "Pod", "status"]],
    ["Pod.status", ["*", "*", "Pod", "status"]],
    ["v1/Pod/status", ["*", "v1", "Pod", "status"]],
    ["v1/Pod.status", ["*", "v1", "Pod", "status"]],
    ["apps/v1/Deployment", ["apps", "v1", "Deployment", ""]],
    ["apps/v1/Deployment/scale", ["apps", "v1", "Deployment", "scale"]],
    ["apps/v1/Deployment.scale", ["apps", "v1", "Deployment", "scale"]],
    ["networking.k8s.io/v1/Ingress", ["networking.k8s.io", "v1", "Ingress", ""]],
    ["apps/*/Deployment", ["apps", "*", "Deployment", ""]],
    ["Group/*/*", ["Group", "*", "*", ""]],
    ["a/b/c/d/e", ["", "", "", ""]],
  ];
  for (const [input, [group, version, kind, subresource]] of cases) {
    test(input, () => assert.deepEqual(parseKindSelector(input), { group, version, kind, subresource }));
  }
});

describe("kindSelectorMatches", () => {
  const pod = { group: "", version: "v1", kind: "Pod" };
  const deploy = { group: "apps", version: "v1", kind: "Deployment" };
  const cases: [string, typeof pod, string, boolean][] = [
    ["Pod", pod, "", true],
    ["Pod", pod, "status", false],
    ["Pod", pod, "ephemeralcontainers", true],
    ["v1/Pod", pod, "ephemeralcontainers", true],
    ["Pod/status", pod, "status", true],
    ["Pod/status", pod, "", false],
    ["Pod/*", pod, "exec", true],
    ["*/*", pod, "exec", true],
    ["*/*", deploy, "", true],
    ["*", deploy, "", true],
    ["*", deploy, "scale", false],
    ["*/scale", deploy, "scale", true],
    ["*/scale", deploy, "", false],
    ["apps/v1/Deployment", deploy, "", true],
    ["apps/v1/Deployment/scale", deploy, "scale", true],
    ["extensions/v1/Deployment", deploy, "", false],
    ["v2/Deployment", deploy, "", false],
    ["Deploy*", deploy, "", true],
    ["Pod", deploy, "", false],
    ["Deployment", { group: "apps", version: "v1", kind: "Deployment" }, "ephemeralcontainers", false],
  ];
  for (const [selector, gvk, sub, want] of cases) {
    test(`${selector} vs ${gvk.kind}${sub ? "/" + sub : ""} -> ${want}`, () => {
      assert.equal(kindSelectorMatches(parseKindSelector(selector), gvk, sub), want);
    });
  }
});
