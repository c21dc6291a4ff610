/** The generate pipeline: match, context and preconditions, substitution, then the generated objects. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { ok } from "../api/result.js";
import { createEngine } from "../engine.js";
import type { ExistingResources } from "../generate/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const none: ExistingResources = { get: () => ok(undefined), list: () => ok([]) };
const ns = (name: string, labels: Record<string, string> = {}): JsonObject => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name, labels, uid: "u-1" },
});

function generate(rule: JsonObject, trigger: JsonObject) {
  const out = engine.compile(
    clusterPolicy("gen", [{ name: "g", match: { any: [{ resources: { kinds: ["Namespace"] } }] }, ...rule }]),
  );
  if (!out.ok) throw new Error(out.problems.map((p) => p.message).join("; "));
  return engine.generate(out.policy, { resource: trigger, operation: "CREATE", namespaceLabels: {} }, none).rules;
}

describe("generate rules", () => {
  test("data with names from variables; the result lists the object and Kyverno's labels", () => {
    const [r] = generate(
      {
        generate: {
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "{{ request.object.metadata.name }}-settings",
          namespace: "{{ request.object.metadata.name }}",
          synchronize: true,
          data: { data: { owner: "{{ request.object.metadata.labels.owner }}" } },
        },
      },
      ns("shop", { owner: "ana" }),
    );
    assert.equal(r?.status, "pass");
    // Kyverno's text for a passing generate rule is empty; the objects ride beside it.
    assert.equal(r?.message, "");
    const g = r?.generated?.[0];
    assert.deepEqual(g?.resource, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "shop-settings", namespace: "shop" },
      data: { owner: "ana" },
    });
    assert.equal(g?.synchronize, true);
    assert.equal(g?.labels["generate.kyverno.io/trigger-uid"], "u-1");
    assert.equal(
      ((g?.toApply["metadata"] as JsonObject)["labels"] as JsonObject)["app.kubernetes.io/managed-by"],
      "kyverno",
    );
  });

  test("a variable that cannot be substituted is an error with Kyverno's generator text (no prefix)", () => {
    const [r] = generate(
      {
        generate: {
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "cm",
          namespace: "{{ request.object.metadata.name }}",
          data: { data: { owner: "{{ request.object.metadata.labels.owner }}" } },
        },
      },
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop", uid: "u-1" } },
    );
    assert.equal(r?.status, "error");
    assert.equal(
      r?.message,
      'failed to resolve request.object.metadata.labels.owner at path /generate/data/data/owner: JMESPath query failed: Unknown key "labels" in path',
    );
  });

  test("preconditions gate the rule", () => {
    const [r] = generate(
      {
        preconditions: {
          all: [{ key: "{{ request.object.metadata.labels.tier || '' }}", operator: "Equals", value: "prod" }],
        },
        generate: { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "x", data: {} },
      },
      ns("dev"),
    );
    assert.equal(r?.status, "skip");
  });

  test("foreach: one object per element, with element variables", () => {
    const [r] = generate(
      {
        context: [{ name: "teams", variable: { value: ["red", "blue"] } }],
        generate: {
          synchronize: true,
          foreach: [
            {
              list: "teams",
              apiVersion: "v1",
              kind: "ServiceAccount",
              name: "sa-{{ element }}",
              namespace: "{{ request.object.metadata.name }}",
              data: {},
            },
          ],
        },
      },
      ns("shop"),
    );
    assert.deepEqual(
      r?.generated?.map((g) => (g.resource["metadata"] as JsonObject)["name"]),
      ["sa-red", "sa-blue"],
    );
    assert.ok(r?.generated?.every((g) => g.synchronize));
  });

  test("a variable that cannot be resolved is an error naming it", () => {
    const [r] = generate(
      {
        generate: {
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "{{ request.object.metadata.nothing }}",
          namespace: "x",
          data: {},
        },
      },
      ns("shop"),
    );
    assert.equal(r?.status, "error");
    assert.match(r?.message ?? "", /nothing/);
  });
});
