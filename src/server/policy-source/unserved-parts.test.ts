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

describe("unservedRules: a MutatingPolicy's mutateExisting", () => {
  const engine = createEngine(fakePorts());
  const mp = (mutateExisting: boolean) =>
    engine.compile({
      apiVersion: "policies.kyverno.io/v1",
      kind: "MutatingPolicy",
      metadata: { name: "mp" },
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["namespaces"] }],
        },
        evaluation: { mutateExisting: { enabled: mutateExisting } },
        mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }],
      },
    });

  test("not Ready where the background controller does not run, naming the field; nothing to say where it runs or without mutateExisting", () => {
    const on = mp(true);
    const off = mp(false);
    assert.ok(on.ok && off.ok);
    if (!on.ok || !off.ok) return;
    const gaps = unservedRules(on.policy);
    assert.equal(gaps.length, 1);
    assert.equal(gaps[0]?.path, "spec.evaluation.mutateExisting");
    assert.match(gaps[0]?.message ?? "", /MutatingPolicy mp: Bylaw does not run mutate-existing here/);
    assert.match(
      unservedRules(on.policy, { backgroundDown: "Lease x" })[0]?.message ?? "",
      /background component, which runs mutate-existing, is not running \(Lease x\)/,
    );
    assert.deepEqual(unservedRules(on.policy, { generate: true }), []);
    assert.deepEqual(unservedRules(off.policy), []);
  });
});
