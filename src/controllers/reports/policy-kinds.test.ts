/** What a background scan lists is asked of each policy's head: kyverno rules' kinds, CEL matchConstraints' resources. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type CompiledPolicy, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { scanKinds } from "./policy-kinds.js";

const engine = createEngine(fakePorts());

function compiled(doc: JsonObject): CompiledPolicy {
  const c = engine.compile(doc);
  assert.ok(c.ok, JSON.stringify(c));
  return c.policy;
}

function validatingPolicy(name: string, resourceRules: JsonObject[]): CompiledPolicy {
  return compiled({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name },
    spec: {
      autogen: { podControllers: { controllers: [] } },
      matchConstraints: { resourceRules },
      validations: [{ expression: "true", message: "m" }],
    },
  });
}

const pods = { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] };

test("a ValidatingPolicy on Pods lists Pods, not every kind", () => {
  const { targets, unlisted } = scanKinds([validatingPolicy("pods-only", [pods])]);
  assert.deepEqual(targets, [
    { text: "core/v1/pods", selector: { by: "resource", group: "", version: "v1", resource: "pods" } },
  ]);
  assert.deepEqual(unlisted, []);
});

test("a ValidatingPolicy's autogen copies list the pod controllers too", () => {
  const policy = compiled({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "with-autogen" },
    spec: { matchConstraints: { resourceRules: [pods] }, validations: [{ expression: "true", message: "m" }] },
  });
  const texts = scanKinds([policy]).targets.map((t) => t.text);
  assert.ok(texts.includes("core/v1/pods"), texts.join());
  assert.ok(texts.includes("apps/v1/deployments"), texts.join());
  assert.ok(texts.includes("batch/v1/cronjobs"), texts.join());
});

test("wildcard and subresource resources are not listed and are named", () => {
  const { targets, unlisted } = scanKinds([
    validatingPolicy("wide", [
      { apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*"] },
      { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["deployments/scale"] },
    ]),
  ]);
  assert.deepEqual(targets, []);
  assert.deepEqual(unlisted, ["wide: */*/*", "wide: apps/v1/deployments/scale"]);
});

test("a ClusterPolicy lists the kinds its validate rules name, by kind (kind * is refused with background on)", () => {
  const policy = compiled({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "cm" },
    spec: {
      rules: [
        {
          name: "r",
          match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
          validate: { message: "m", pattern: { metadata: {} } },
        },
      ],
    },
  });
  const { targets, unlisted } = scanKinds([policy]);
  assert.deepEqual(targets, [
    { text: "ConfigMap", selector: { by: "kind", group: "*", version: "*", kind: "ConfigMap", subresource: "" } },
  ]);
  assert.deepEqual(unlisted, []);
});
