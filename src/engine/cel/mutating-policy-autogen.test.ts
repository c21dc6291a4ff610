/** Kyverno's MutatingPolicy autogen (mutating-policy-autogen.ts): which expressions are rewritten, and how. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { mutatingAutogenConfigs, podToTemplateExpression } from "./mutating-policy-autogen.js";

const pods = { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] };

describe("MutatingPolicy autogen", () => {
  test("object/oldObject/Object .spec, .metadata.labels and .metadata.annotations move to the pod template; other metadata stays", () => {
    assert.equal(
      podToTemplateExpression(
        "object.spec.containers.size() > 0 && oldObject.metadata.labels['a'] == object.metadata.name",
        "defaults",
      ),
      "object.spec.template.spec.containers.size() > 0 && oldObject.spec.template.metadata.labels['a'] == object.metadata.name",
    );
    assert.equal(
      podToTemplateExpression("has(object.metadata.annotations.x)", "cronjobs"),
      "has(object.spec.jobTemplate.spec.template.metadata.annotations.x)",
    );
    assert.equal(podToTemplateExpression("myobject.spec", "defaults"), "myobject.spec", "only whole words");
  });

  test("a root Object{…} constructor is wrapped in the controller's constructors, whatever follows it", () => {
    assert.equal(
      podToTemplateExpression("Object{spec: Object.spec{hostNetwork: false}}", "defaults"),
      "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{hostNetwork: false}}}}",
    );
    assert.equal(
      podToTemplateExpression("  Object {metadata: Object.metadata{labels: {'a': 'b'}}}", "cronjobs"),
      "Object{spec: Object.spec{jobTemplate: Object.spec.jobTemplate{spec: Object.spec.jobTemplate.spec{template: Object.spec.jobTemplate.spec.template{metadata: Object.metadata{labels: {'a': 'b'}}}}}}}",
    );
    assert.equal(podToTemplateExpression("Object{}", "defaults"), "Object{}", "an empty constructor is left as it is");
    assert.equal(podToTemplateExpression("Object{a: 1", "defaults"), "Object{a: 1", "an unclosed one too");
  });

  test("only matchConditions and applyConfiguration expressions are rewritten; JSON patches and variables stay", () => {
    const spec: JsonObject = {
      matchConstraints: { resourceRules: [pods] },
      matchConditions: [{ name: "m", expression: "object.spec.hostNetwork" }],
      variables: [{ name: "v", expression: "object.spec.hostPID" }],
      mutations: [
        { patchType: "JSONPatch", jsonPatch: { expression: "object.spec.x" } },
        { patchType: "ApplyConfiguration", applyConfiguration: { expression: "object.spec.y" } },
      ],
      autogen: { podControllers: { controllers: ["deployments"] } },
    };
    const [defaults] = mutatingAutogenConfigs(spec);
    assert.equal(defaults?.config, "defaults");
    assert.deepEqual(defaults?.spec["matchConditions"], [
      { name: "m", expression: "object.spec.template.spec.hostNetwork" },
    ]);
    assert.deepEqual(defaults?.spec["variables"], spec["variables"]);
    assert.deepEqual(defaults?.spec["mutations"], [
      { patchType: "JSONPatch", jsonPatch: { expression: "object.spec.x" } },
      { patchType: "ApplyConfiguration", applyConfiguration: { expression: "object.spec.template.spec.y" } },
    ]);
    assert.deepEqual(defaults?.spec["matchConstraints"], {
      resourceRules: [{ apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"], operations: ["CREATE"] }],
    });
  });
});
