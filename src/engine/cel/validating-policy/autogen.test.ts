/** Kyverno's ValidatingPolicy autogen: which policies get pod-controller copies, and how expressions are rewritten. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../../api/json.js";
import { autogenConfigs, autogenSpecs, canAutogen } from "./autogen.js";

const pods = { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] };

function spec(extra: JsonObject = {}, rules: JsonObject[] = [pods]): JsonObject {
  return {
    matchConstraints: { resourceRules: rules },
    validations: [
      {
        expression:
          "object.spec.hostNetwork != true && object.metadata.namespace != 'x' && oldObject.metadata.name == ''",
      },
    ],
    ...extra,
  };
}

describe("ValidatingPolicy autogen", () => {
  test("only a policy on exactly core v1 pods, without objectSelector, exclusions or names, is copied", () => {
    assert.equal(canAutogen(spec()), true);
    assert.equal(canAutogen(spec({}, [{ ...pods, resources: ["pods", "services"] }])), false);
    assert.equal(canAutogen(spec({}, [{ ...pods, resourceNames: ["a"] }])), false);
    assert.equal(
      canAutogen(spec({ matchConstraints: { resourceRules: [pods], objectSelector: { matchLabels: { a: "b" } } } })),
      false,
    );
    assert.equal(
      canAutogen(spec({ matchConstraints: { resourceRules: [pods], excludeResourceRules: [pods] } })),
      false,
    );
    assert.equal(canAutogen(spec({ matchConstraints: { resourceRules: [pods], objectSelector: {} } })), true);
  });

  test("copies rewrite object/oldObject spec and metadata to the pod template, keep .namespace, and match the controllers", () => {
    const [cron, defaults] = autogenSpecs(
      spec({ matchConstraints: { resourceRules: [pods], namespaceSelector: { matchLabels: { a: "b" } } } }),
    );
    assert.deepEqual(
      (defaults?.["validations"] as JsonObject[])[0]?.["expression"],
      "object.spec.template.spec.hostNetwork != true && object.metadata.namespace != 'x' && oldObject.spec.template.metadata.name == ''",
    );
    assert.deepEqual(
      (cron?.["validations"] as JsonObject[])[0]?.["expression"],
      "object.spec.jobTemplate.spec.template.spec.hostNetwork != true && object.metadata.namespace != 'x' && oldObject.spec.jobTemplate.spec.template.metadata.name == ''",
    );
    assert.deepEqual(defaults?.["matchConstraints"], {
      resourceRules: [
        {
          apiGroups: ["apps"],
          apiVersions: ["v1"],
          resources: ["daemonsets", "deployments", "replicasets", "statefulsets"],
          operations: ["CREATE", "UPDATE"],
        },
        { apiGroups: ["batch"], apiVersions: ["v1"], resources: ["jobs"], operations: ["CREATE", "UPDATE"] },
      ],
      namespaceSelector: { matchLabels: { a: "b" } },
    });
  });

  test("spec.autogen.podControllers.controllers narrows the copies; an empty list means none", () => {
    const only = autogenSpecs(spec({ autogen: { podControllers: { controllers: ["deployments"] } } }));
    assert.deepEqual(
      only.map((s) => (s["matchConstraints"] as JsonObject)["resourceRules"]),
      [[{ apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"], operations: ["CREATE", "UPDATE"] }]],
    );
    assert.deepEqual(autogenSpecs(spec({ autogen: { podControllers: { controllers: [] } } })), []);
  });

  test("each config is named and lists its controllers as Kyverno's targets, sorted by group, version, resource and kind, without duplicates", () => {
    const configs = autogenConfigs(
      spec({ autogen: { podControllers: { controllers: ["jobs", "deployments", "jobs", "cronjobs", "pods"] } } }),
    );
    assert.deepEqual(
      configs.map((c) => [c.config, c.targets]),
      [
        ["cronjobs", [{ group: "batch", version: "v1", resource: "cronjobs", kind: "CronJob" }]],
        [
          "defaults",
          [
            { group: "apps", version: "v1", resource: "deployments", kind: "Deployment" },
            { group: "batch", version: "v1", resource: "jobs", kind: "Job" },
          ],
        ],
      ],
    );
  });

  test("the new matchConstraints are rewritten with the rest of the spec, as Kyverno rewrites the whole copy", () => {
    const nsSelector = { matchLabels: { tier: "object.spec" } };
    const [, defaults] = autogenConfigs(
      spec({ matchConstraints: { resourceRules: [pods], namespaceSelector: nsSelector } }),
    );
    assert.deepEqual((defaults?.spec["matchConstraints"] as JsonObject)["namespaceSelector"], {
      matchLabels: { tier: "object.spec.template.spec" },
    });
  });

  test("a pod rule without operations: Kyverno still writes the configs, without matchConstraints; Bylaw evaluates no copy of it", () => {
    const noOps = spec({}, [{ ...pods, operations: [] }]);
    assert.deepEqual(
      autogenConfigs(noOps).map((c) => [c.config, c.spec["matchConstraints"]]),
      [
        ["cronjobs", undefined],
        ["defaults", undefined],
      ],
    );
    assert.deepEqual(autogenSpecs(noOps), []);
  });
});
