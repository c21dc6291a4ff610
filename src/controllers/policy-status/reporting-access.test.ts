import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { PolicyOutcome } from "./policy-status.js";
import { reportingAccess, reportingMessage, reportingResources } from "./reporting-access.js";

const spec = {
  matchConstraints: {
    resourceRules: [
      { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods", "configmaps"] },
      { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] },
    ],
  },
};

const outcome = (kind: PolicyOutcome["kind"]): PolicyOutcome => ({
  kind,
  namespace: "",
  name: "p",
  uid: "u",
  resourceVersion: "1",
  generation: 1,
  rules: [],
  spec,
  status: undefined,
  problems: [],
});

describe("RBACPermissionsGranted", () => {
  test("the resources are every group × version × resource of matchConstraints.resourceRules", () => {
    assert.deepEqual(reportingResources(spec), [
      { group: "", version: "v1", resource: "pods" },
      { group: "", version: "v1", resource: "configmaps" },
      { group: "apps", version: "v1", resource: "deployments" },
    ]);
    assert.deepEqual(reportingResources({}), []);
  });

  test("Kyverno's texts: granted, and each refusal with the authorizer's reason", () => {
    assert.equal(reportingMessage([]), "Policy is ready for reporting.");
    assert.equal(
      reportingMessage(["get /v1, Resource=pods: ", "list /v1, Resource=pods: no"]),
      "Policy is not ready for reporting, missing permissions: get /v1, Resource=pods: ; list /v1, Resource=pods: no.",
    );
  });

  test("get, list and watch are asked of each resource; refusals are listed in order; answers are kept for the TTL", async () => {
    const asked: string[] = [];
    let now = 0;
    const access = reportingAccess({
      check: (verb, gvr) => {
        asked.push(`${verb} ${gvr.group}/${gvr.resource}`);
        return Promise.resolve({ allowed: gvr.resource !== "pods" || verb === "get", reason: "" });
      },
      now: () => now,
      ttlMs: 1000,
    });
    assert.deepEqual(await access(outcome("ValidatingPolicy")), [
      "list /v1, Resource=pods: ",
      "watch /v1, Resource=pods: ",
    ]);
    assert.equal(asked.length, 9);
    await access(outcome("MutatingPolicy"));
    assert.equal(asked.length, 9, "answered from what was kept");
    now = 1000;
    await access(outcome("ValidatingPolicy"));
    assert.equal(asked.length, 18, "asked again after the TTL");
  });

  test("a review that cannot be made is a refusal naming the error (never a grant)", async () => {
    const access = reportingAccess({ check: () => Promise.reject(new Error("connection refused")), now: () => 0 });
    const missing = await access(outcome("ValidatingPolicy"));
    assert.equal(missing?.length, 9);
    assert.equal(missing?.[0], "connection refused");
  });

  test("the reports component in processes of its own: nothing checked until it has been started, then its refusals", async () => {
    let started = false;
    let asked = 0;
    const access = reportingAccess({
      check: () => {
        asked++;
        return Promise.resolve({ allowed: false, reason: "" });
      },
      now: () => 0,
      started: () => started,
    });
    assert.equal(await access(outcome("ValidatingPolicy")), undefined, "not started: no condition");
    assert.equal(asked, 0);
    started = true;
    assert.equal((await access(outcome("ValidatingPolicy")))?.length, 9);
  });

  test("DeletingPolicy and the kyverno.io kinds carry no such condition", async () => {
    const access = reportingAccess({ check: () => Promise.resolve({ allowed: true, reason: "" }), now: () => 0 });
    assert.equal(await access(outcome("DeletingPolicy")), undefined);
    assert.equal(await access(outcome("ClusterPolicy")), undefined);
  });
});
