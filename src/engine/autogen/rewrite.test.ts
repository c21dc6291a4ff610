import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { autogenRules } from "./autogen.js";
import { shiftReferences } from "./shift-references.js";
import { TEMPLATE_KINDS, policyOf } from "../../../test/support/autogen-policies.js";

const match = { any: [{ resources: { kinds: ["Pod"] } }] };

function generated(rule: object): [JsonObject, JsonObject] {
  const [pod, cron] = autogenRules(policyOf([{ name: "r", match, ...rule }])) as unknown as JsonObject[];
  assert.ok(pod !== undefined && cron !== undefined, "expected two generated rules");
  return [pod, cron];
}

describe("variable paths are rewritten to the pod template", () => {
  const rule = {
    context: [{ name: "sa", variable: { jmesPath: "request.object.spec.serviceAccountName" } }],
    preconditions: {
      all: [{ key: "{{ request.object.metadata.labels.app || '' }}", operator: "Equals", value: "web" }],
    },
    validate: {
      message: "SA {{ request.object.spec.serviceAccountName }} in {{ request.oldObject.metadata.name }}",
      deny: {
        conditions: { any: [{ key: "{{ request.oldObject.spec.hostNetwork }}", operator: "Equals", value: true }] },
      },
    },
  };
  const [pod, cron] = generated(rule);

  test("autogen- rule: spec.template", () => {
    assert.deepEqual(pod["context"], [
      { name: "sa", variable: { jmesPath: "request.object.spec.template.spec.serviceAccountName" } },
    ]);
    assert.deepEqual(pod["preconditions"], {
      all: [{ key: "{{ request.object.spec.template.metadata.labels.app || '' }}", operator: "Equals", value: "web" }],
    });
    assert.deepEqual(pod["validate"], {
      message:
        "SA {{ request.object.spec.template.spec.serviceAccountName }} in {{ request.oldObject.spec.template.metadata.name }}",
      deny: {
        conditions: {
          any: [{ key: "{{ request.oldObject.spec.template.spec.hostNetwork }}", operator: "Equals", value: true }],
        },
      },
    });
  });

  test("autogen-cronjob- rule: spec.jobTemplate.spec.template", () => {
    assert.deepEqual(cron["context"], [
      { name: "sa", variable: { jmesPath: "request.object.spec.jobTemplate.spec.template.spec.serviceAccountName" } },
    ]);
    const validate = cron["validate"] as JsonObject;
    assert.equal(
      validate["message"],
      "SA {{ request.object.spec.jobTemplate.spec.template.spec.serviceAccountName }} in {{ request.oldObject.spec.jobTemplate.spec.template.metadata.name }}",
    );
  });

  test("foreach lists are rewritten and foreach patterns are not nested", () => {
    const [p] = generated({
      validate: {
        message: "m",
        foreach: [{ list: "request.object.spec.containers", pattern: { image: "!*:latest" } }],
      },
    });
    assert.deepEqual(p["validate"], {
      message: "m",
      foreach: [{ list: "request.object.spec.template.spec.containers", pattern: { image: "!*:latest" } }],
    });
  });

  test("CEL expressions use object. / oldObject. forms", () => {
    const [p, c] = generated({
      validate: {
        cel: {
          expressions: [{ expression: "object.spec.containers.all(c, has(c.image)) && oldObject.metadata.name != ''" }],
        },
      },
    });
    assert.deepEqual(p["validate"], {
      cel: {
        expressions: [
          {
            expression:
              "object.spec.template.spec.containers.all(c, has(c.image)) && oldObject.spec.template.metadata.name != ''",
          },
        ],
      },
    });
    assert.deepEqual(c["validate"], {
      cel: {
        expressions: [
          {
            expression:
              "object.spec.jobTemplate.spec.template.spec.containers.all(c, has(c.image)) && oldObject.spec.jobTemplate.spec.template.metadata.name != ''",
          },
        ],
      },
    });
  });

  test('quoting the path as JMESPath `"object"` avoids the rewrite', () => {
    const [p] = generated({
      validate: {
        deny: { conditions: { any: [{ key: '{{ request."object".spec.x }}', operator: "Equals", value: 1 }] } },
      },
    });
    assert.deepEqual(p["validate"], {
      deny: { conditions: { any: [{ key: '{{ request."object".spec.x }}', operator: "Equals", value: 1 }] } },
    });
  });
});

describe("rule types are nested under the template", () => {
  test("anyPattern", () => {
    const [p] = generated({ validate: { anyPattern: [{ spec: { a: 1 } }, { spec: { b: 2 } }] } });
    assert.deepEqual(p["validate"], {
      anyPattern: [{ spec: { template: { spec: { a: 1 } } } }, { spec: { template: { spec: { b: 2 } } } }],
    });
  });

  test("podSecurity keeps level, version and exclude", () => {
    const podSecurity = {
      level: "baseline",
      version: "latest",
      exclude: [{ controlName: "Host Ports", images: ["nginx*"] }],
    };
    const [p] = generated({ validate: { failureAction: "Audit", podSecurity } });
    assert.deepEqual(p["validate"], { failureAction: "Audit", podSecurity });
  });

  test("mutate patchStrategicMerge", () => {
    const [p, c] = generated({ mutate: { patchStrategicMerge: { spec: { x: 1 } } } });
    assert.deepEqual(p["mutate"], { patchStrategicMerge: { spec: { template: { spec: { x: 1 } } } } });
    assert.deepEqual(c["mutate"], {
      patchStrategicMerge: { spec: { jobTemplate: { spec: { template: { spec: { x: 1 } } } } } },
    });
  });

  test("mutate foreach keeps list, context and preconditions", () => {
    const fe = {
      list: "request.object.spec.containers",
      order: "Ascending",
      preconditions: { all: [] },
      patchStrategicMerge: { spec: { y: 1 } },
    };
    const [p] = generated({ mutate: { foreach: [fe] } });
    assert.deepEqual(p["mutate"], {
      foreach: [
        {
          list: "request.object.spec.template.spec.containers",
          preconditions: { all: [] },
          patchStrategicMerge: { spec: { template: { spec: { y: 1 } } } },
        },
      ],
    });
  });

  test("validate.assert nests object and oldObject", () => {
    const [p] = generated({ validate: { assert: { object: { spec: { a: 1 } }, other: 1 } } });
    assert.deepEqual(p["validate"], { assert: { object: { spec: { template: { spec: { a: 1 } } } }, other: 1 } });
  });

  test("verifyImages rules are carried over; imageExtractors are not", () => {
    const verifyImages = [{ imageReferences: ["ghcr.io/*"], attestors: [] }];
    const [p] = generated({ verifyImages, imageExtractors: { Pod: [] } });
    assert.deepEqual(p, {
      name: "autogen-r",
      match: { any: [{ resources: { kinds: TEMPLATE_KINDS } }] },
      verifyImages,
    });
  });

  test("reportProperties, skipBackgroundRequests and celPreconditions are carried; empty lists are dropped", () => {
    const [p] = generated({
      reportProperties: { team: "a" },
      skipBackgroundRequests: false,
      celPreconditions: [{ name: "c", expression: "true" }],
      context: [],
      validate: { pattern: { spec: {} } },
    });
    assert.deepEqual(Object.keys(p), [
      "name",
      "match",
      "celPreconditions",
      "validate",
      "skipBackgroundRequests",
      "reportProperties",
    ]);
  });
});

describe("shiftReferences", () => {
  const cases: [string, string, string, string][] = [
    ["$(./../pattern/spec/x)", "spec/template", "pattern", "$(./../pattern/spec/template/spec/x)"],
    ["value $(pattern/spec/x) is bad", "spec/template", "pattern", "value $(pattern/spec/template/spec/x) is bad"],
    ["escaped \\$(pattern/spec/x)", "spec/template", "pattern", "escaped \\$(pattern/spec/x)"],
    ["no reference", "spec/template", "pattern", "no reference"],
    ["$(anyPattern/1/spec/x)", "spec/template", "anyPattern", "$(anyPattern/1/spec/template/spec/x)"],
  ];
  for (const [message, shift, pivot, want] of cases) {
    test(message, () => assert.equal(shiftReferences(message, shift, pivot), want));
  }

  test("messages are shifted in generated rules (twice for CronJob)", () => {
    const [p, c] = generated({ validate: { message: "see $(./../pattern/spec/x)", pattern: { spec: { x: 1 } } } });
    assert.equal((p["validate"] as JsonObject)["message"], "see $(./../pattern/spec/template/spec/x)");
    assert.equal(
      (c["validate"] as JsonObject)["message"],
      "see $(./../pattern/spec/jobTemplate/spec/template/spec/template/spec/x)",
    );
  });
});
