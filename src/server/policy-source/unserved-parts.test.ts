/** What of a policy serve does not run (unserved-parts.ts): mutate-existing rules run where the background controller does. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createEngine } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { unservedRules } from "./unserved-parts.js";

const compiled = createEngine(fakePorts()).compile({
  apiVersion: "kyverno.io/v1",
  kind: "ClusterPolicy",
  metadata: { name: "label-secrets" },
  spec: {
    rules: [
      {
        name: "on-dictionary",
        match: { any: [{ resources: { kinds: ["ConfigMap"] } }] },
        mutate: {
          targets: [{ apiVersion: "v1", kind: "Secret", namespace: "{{ request.object.metadata.namespace }}" }],
          patchStrategicMerge: { metadata: { labels: { foo: "bar" } } },
        },
      },
    ],
  },
});

describe("unservedRules: mutate-existing", () => {
  test("not run without the background controller: the rule, the field and the flag that runs it", () => {
    assert.ok(compiled.ok);
    if (!compiled.ok) return;
    const gaps = unservedRules(compiled.policy);
    assert.equal(gaps.length, 1);
    assert.equal(gaps[0]?.path, "spec.rules[0].mutate.targets");
    assert.match(
      gaps[0]?.message ?? "",
      /^rule on-dictionary: Bylaw does not run mutate-existing rules \(mutate\.targets\) here/,
    );
    assert.match(gaps[0]?.message ?? "", /serve --cluster --generate-controller-as SA/);
  });

  test("run where the background controller runs: nothing is missing, so the policy can be Ready", () => {
    assert.ok(compiled.ok);
    if (compiled.ok) assert.deepEqual(unservedRules(compiled.policy, { generate: true }), []);
  });

  test("the background component started once and gone: not run, naming the component and why", () => {
    assert.ok(compiled.ok);
    if (!compiled.ok) return;
    const gaps = unservedRules(compiled.policy, {
      backgroundDown: "its Lease bylaw/bylaw-background-controller has no holder",
    });
    assert.equal(
      gaps[0]?.message,
      "rule on-dictionary: Bylaw's background component, which runs mutate-existing rules (mutate.targets), is not running (its Lease bylaw/bylaw-background-controller has no holder), so no existing resource would be changed",
    );
  });
});
