/**
 * Kyverno engine behaviours (issue 20), each from Kyverno's source: pkg/engine/context/loaders
 * (variable defaults), pkg/engine/handlers/validation (foreach elementScope), pkg/engine/mutate/patch
 * strategicPreprocessing (conditions holding `+()` keys; global anchors in lists), the generate
 * controller (no data and no clone), and mutate-existing target lookup (no namespace: every namespace).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { ok } from "../api/result.js";
import { createEngine } from "../engine.js";
import type { ExistingResources } from "../generate/index.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import type { EngineRequest } from "./types.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy, pod } from "../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const matchPods = { any: [{ resources: { kinds: ["Pod"] } }] };

function compile(doc: JsonObject): CompiledPolicy {
  const r = engine.compile(doc);
  if (!r.ok) throw new Error(r.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
  return r.policy;
}

const request = (resource: JsonObject): EngineRequest => ({ resource, operation: "CREATE", namespaceLabels: {} });

function validate(rule: JsonObject, resource: JsonObject) {
  return engine.validate(compile(clusterPolicy("p", [{ name: "r", match: matchPods, ...rule }])), request(resource))
    .rules[0];
}

function mutate(patch: JsonObject, resource: JsonObject) {
  return engine.mutate(
    compile(clusterPolicy("p", [{ name: "m", match: matchPods, mutate: { patchStrategicMerge: patch } }])),
    request(resource),
  );
}

describe("a variable context entry's default", () => {
  test("is variable-substituted", () => {
    const r = validate(
      {
        context: [
          {
            name: "owner",
            variable: {
              jmesPath: "request.object.metadata.labels.owner",
              default: "{{ request.object.metadata.name }}-team",
            },
          },
        ],
        validate: { deny: { conditions: { any: [{ key: "{{ owner }}", operator: "NotEquals", value: "web-team" }] } } },
      },
      pod({ name: "web" }),
    );
    assert.equal(r?.status, "pass", r?.message);
  });

  test("a default that cannot be substituted is the rule's error", () => {
    const r = validate(
      {
        context: [
          {
            name: "owner",
            variable: { jmesPath: "request.object.metadata.labels.owner", default: "{{ request.object.nope.deeper }}" },
          },
        ],
        validate: { deny: { conditions: { any: [{ key: "{{ owner }}", operator: "Equals", value: "x" }] } } },
      },
      pod({ name: "web" }),
    );
    assert.equal(r?.status, "error");
    // Kyverno's loader names the entry and the default as written.
    assert.match(
      r?.message ?? "",
      /failed to substitute variables in context entry owner \{\{ request\.object\.nope\.deeper \}\}: /,
    );
  });
});

describe("validate.foreach elementScope", () => {
  const names = (elementScope?: boolean): JsonObject => ({
    validate: {
      foreach: [
        {
          list: "request.object.spec.containers[].name",
          ...(elementScope !== undefined ? { elementScope } : {}),
          pattern: { metadata: { labels: { team: "?*" } } },
        },
      ],
    },
  });
  test("true over elements that are not maps is Kyverno's error", () => {
    const r = validate(names(true), pod({ name: "web", labels: { team: "a" } }));
    assert.equal(r?.status, "error");
    assert.match(
      r?.message ?? "",
      /cannot use elementScope=true foreach rules for elements that are not maps, expected type=map got type=string/,
    );
  });
  test("unset over elements that are not maps validates the resource itself", () => {
    assert.equal(validate(names(), pod({ name: "web", labels: { team: "a" } }))?.status, "pass");
    assert.equal(validate(names(), pod({ name: "web" }))?.status, "fail");
  });
});

describe("patchStrategicMerge anchors", () => {
  test("a conditional anchor whose value holds +() keys counts as met, and the field is added", () => {
    const r = mutate(
      { metadata: { "(labels)": { "+(team)": "bravo" } } },
      pod({ name: "web", labels: { app: "shop" } }),
    );
    assert.equal(r.rules[0]?.status, "pass", r.rules[0]?.message);
    assert.deepEqual((r.patchedResource?.["metadata"] as JsonObject)["labels"], { app: "shop", team: "bravo" });
  });
  test("the +() field already present is left alone", () => {
    const r = mutate(
      { metadata: { "(labels)": { "+(team)": "bravo" } } },
      pod({ name: "web", labels: { team: "alpha" } }),
    );
    assert.deepEqual((r.patchedResource?.["metadata"] as JsonObject)["labels"], { team: "alpha" });
  });
  test("a global anchor in a list pattern, with no such list in the resource, fails: the rule is skipped", () => {
    const patch = { spec: { initContainers: [{ "<(image)": "busybox*" }], "+(priority)": 5 } };
    const r = mutate(patch, pod({ name: "web" }));
    assert.equal(r.rules[0]?.status, "skip");
    assert.equal(r.rules[0]?.message, "no patches applied", "Kyverno's text, whatever stopped the patch");
  });
});

describe("generate with neither data nor clone", () => {
  test("is a valid rule that generates the object with metadata only", () => {
    const policy = compile(
      clusterPolicy("g", [
        {
          name: "marker",
          match: matchPods,
          generate: {
            apiVersion: "v1",
            kind: "ConfigMap",
            name: "marker",
            namespace: "{{ request.object.metadata.namespace }}",
          },
        },
      ]),
    );
    const none: ExistingResources = { get: () => ok(undefined), list: () => ok([]) };
    const r = engine.generate(policy, request(pod({ name: "web" })), none);
    assert.equal(r.rules[0]?.status, "pass", r.rules[0]?.message);
    assert.deepEqual(r.rules[0]?.generated?.[0]?.resource, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "marker", namespace: "default" },
    });
  });
});

describe("mutate.targets with no namespace", () => {
  test("are looked up with an empty namespace, which the offline store reads as every namespace", () => {
    const asked: string[] = [];
    const targets = [
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "one" } },
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b", namespace: "two" } },
    ];
    const existing: ExistingResources = {
      get: () => ok(undefined),
      list: (_v, _k, ns) => {
        asked.push(ns);
        return ok(ns === "" ? targets : targets.filter((t) => t.metadata.namespace === ns));
      },
    };
    const policy = compile(
      clusterPolicy("t", [
        {
          name: "stamp",
          match: matchPods,
          mutate: {
            targets: [{ apiVersion: "v1", kind: "ConfigMap" }],
            patchStrategicMerge: { metadata: { labels: { stamped: "yes" } } },
          },
        },
      ]),
    );
    const r = engine.mutate(policy, request(pod({ name: "web" })), existing);
    assert.deepEqual(asked, [""]);
    assert.equal(r.rules.filter((x) => x.status === "pass").length, 2, JSON.stringify(r.rules));
  });
});
