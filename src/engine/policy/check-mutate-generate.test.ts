import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { clusterPolicy } from "../../../test/support/builders.js";

const engine = createEngine(fakePorts());
const match = { any: [{ resources: { kinds: ["Pod"] } }] };

function problems(rule: JsonObject, kind: "ClusterPolicy" | "Policy" = "ClusterPolicy"): string[] {
  const doc = clusterPolicy("p", [{ name: "r", match, ...rule }]);
  if (kind === "Policy") {
    doc["kind"] = "Policy";
    (doc["metadata"] as JsonObject)["namespace"] = "team-a";
  }
  const out = engine.compile(doc);
  const list = out.ok ? out.policy.warnings : out.problems;
  return list.map((p) => `${p.severity} ${p.path}: ${p.message}`);
}

describe("mutate checks at load time", () => {
  test("variables in the rule's own patchesJson6902 paths are refused", () => {
    const found = problems({
      mutate: { patchesJson6902: "- op: add\n  path: /metadata/labels/{{ request.object.kind }}\n  value: x\n" },
    });
    assert.ok(
      found.some((p) =>
        p.startsWith(
          "error spec.rules[0].mutate.patchesJson6902: operation 0: should not have variables in patchesJSON6902 path section",
        ),
      ),
      found.join("\n"),
    );
  });

  test("inside foreach, {{elementIndex}} in a path is how entries address their element", () => {
    const found = problems({
      mutate: {
        foreach: [
          {
            list: "request.object.spec.containers",
            patchesJson6902: "- op: remove\n  path: /spec/containers/{{elementIndex}}/env\n",
          },
        ],
      },
    });
    assert.deepEqual(
      found.filter((p) => p.startsWith("error")),
      [],
    );
  });

  test("exactly one kind of patch per rule and per foreach entry; foreach needs a list", () => {
    assert.ok(
      problems({ mutate: {} }).some((p) =>
        /needs exactly one of patchStrategicMerge, patchesJson6902, foreach; found none/.test(p),
      ),
    );
    assert.ok(
      problems({ mutate: { foreach: [{ patchStrategicMerge: {} }] } }).some((p) =>
        p.includes("mutate.foreach[0].list: list is required"),
      ),
    );
    assert.ok(
      problems({ mutate: { foreach: [{ list: "x", order: "Sideways", patchStrategicMerge: {} }] } }).some((p) =>
        p.includes(
          'mutate.foreach[0].order: Unsupported value: "Sideways": supported values: "Ascending", "Descending"',
        ),
      ),
    );
  });

  test("element outside foreach is refused", () => {
    assert.ok(
      problems({ mutate: { patchStrategicMerge: { metadata: { labels: { a: "{{ element.name }}" } } } } }).some((p) =>
        p.includes(
          "variable 'element.name' present outside of foreach at path /mutate/patchStrategicMerge/metadata/labels/a",
        ),
      ),
    );
  });

  test("a JSON patch on Pods warns, in Kyverno's words, that Pods of controllers should not be mutated directly", () => {
    assert.ok(
      problems({ mutate: { patchesJson6902: "- op: add\n  path: /metadata/labels\n  value: {}\n" } }).some(
        (p) =>
          p.startsWith("warning") &&
          p.includes(
            "Pods managed by workload controllers should not be directly mutated using policies. Use the autogen feature or write policies that match Pod controllers.",
          ),
      ),
    );
  });

  test("a namespaced Policy keeps targets and generated resources in its own namespace", () => {
    assert.ok(
      problems(
        {
          mutate: {
            targets: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "other" }],
            patchStrategicMerge: { metadata: { labels: { a: "b" } } },
          },
        },
        "Policy",
      ).some((p) =>
        p.includes(
          "mutate.targets[0].namespace: a namespaced Policy can only use mutate targets in its own namespace: expected team-a, got other",
        ),
      ),
    );
    assert.ok(
      problems(
        { generate: { apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "other", data: {} } },
        "Policy",
      ).some((p) =>
        p.includes(
          "generate.namespace: Forbidden: target resource scope mismatched: a namespaced policy cannot generate resources in other namespaces, expected: team-a, received: other",
        ),
      ),
    );
  });
});

describe("a namespaced Policy's generate rules stay in its namespace, as Kyverno words it", () => {
  const texts = (generate: JsonObject): string[] => problems({ generate }, "Policy");
  test("a variable or missing target namespace is refused too", () => {
    for (const ns of [undefined, "{{request.object.metadata.name}}"]) {
      const g = {
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "c",
        data: {},
        ...(ns === undefined ? {} : { namespace: ns }),
      };
      assert.ok(
        texts(g).some((p) =>
          p.includes(
            `generate.namespace: Forbidden: target resource scope mismatched: a namespaced policy cannot generate resources in other namespaces, expected: team-a, received: ${ns ?? ""}`,
          ),
        ),
        texts(g).join("\n"),
      );
    }
    assert.deepEqual(
      texts({ apiVersion: "v1", kind: "ConfigMap", name: "c", namespace: "team-a", data: {} }).filter((p) =>
        p.includes("namespace"),
      ),
      [],
    );
  });
  test("a clone source or cloneList in another namespace is refused", () => {
    assert.ok(
      texts({
        apiVersion: "v1",
        kind: "Secret",
        name: "s",
        namespace: "team-a",
        clone: { name: "src", namespace: "default" },
      }).some((p) =>
        p.includes(
          "generate.namespace: Forbidden: target resource scope mismatched: a namespaced policy cannot clone resources from other namespaces, expected: team-a, received: default",
        ),
      ),
    );
    assert.ok(
      texts({ namespace: "team-a", cloneList: { kinds: ["v1/Secret"], namespace: "default" } }).some((p) =>
        p.includes(
          "generate.cloneList.namespace: Forbidden: a namespaced policy cannot clone resources from other namespace, expected: team-a, received: default",
        ),
      ),
    );
  });
});

describe("generate checks at load time", () => {
  test("one source, and the target's name and kind", () => {
    const found = problems({
      generate: { apiVersion: "v1", kind: "ConfigMap", namespace: "x", data: {}, clone: { namespace: "a", name: "b" } },
    });
    assert.ok(
      found.some((p) => p.includes("only one of data, clone, cloneList or foreach")),
      found.join("\n"),
    );
    assert.ok(
      problems({ generate: { apiVersion: "v1", kind: "ConfigMap", namespace: "x", data: {} } }).some((p) =>
        p.includes("generate.name: name cannot be empty"),
      ),
    );
  });
});
