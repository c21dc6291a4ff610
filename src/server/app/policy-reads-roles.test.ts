/** Which loaded policies make a review ask for the user's roles in cluster mode. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../engine/index.js";
import { createOfflineEngine } from "../../platform/offline-engine.js";
import { policyReadsRoles } from "./live-context-setup.js";

const engine = createOfflineEngine();
const compiled = (doc: JsonObject) => {
  const r = engine.compile(doc);
  assert.ok(r.ok, JSON.stringify(r));
  return r.policy;
};
const podRule = (extra: JsonObject): JsonObject => ({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "p" },
  spec: {
    background: false,
    rules: [
      {
        name: "r",
        match: { any: [{ resources: { kinds: ["Pod"] }, ...extra }] },
        validate: { message: "m", pattern: { metadata: { labels: { team: "?*" } } } },
      },
    ],
  },
});

test("a policy that matches on roles or clusterRoles, or reads request.roles, reads roles; one that does not, does not", () => {
  assert.equal(policyReadsRoles(compiled(podRule({ clusterRoles: ["cluster-admin"] }))), true);
  assert.equal(policyReadsRoles(compiled(podRule({ roles: ["shop:dev"] }))), true);
  const viaVariable = podRule({});
  (viaVariable["spec"] as { rules: JsonObject[] }).rules[0]!["validate"] = { message: "{{ request.roles }}", deny: {} };
  assert.equal(policyReadsRoles(compiled(viaVariable)), true);
  assert.equal(policyReadsRoles(compiled(podRule({}))), false);
});
