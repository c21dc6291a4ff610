/** ADR 0005 step 1: what a policy matches is asked of its head, one matcher per language. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonObject } from "../api/json.js";
import { createEngine } from "../engine.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { policyMatchNames, policyMatchOf } from "./policy-match.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";

const engine = createEngine(fakePorts());
const pods = {
  resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"] }],
};

function compiled(doc: JsonObject): CompiledPolicy {
  const r = engine.compile(doc);
  assert.ok(r.ok, JSON.stringify(r.ok ? "" : r.problems));
  return r.policy;
}

/** The resources each matchConstraints registers, in order. */
function resources(policy: CompiledPolicy): string[][] {
  const m = policyMatchOf(policy);
  assert.equal(m.language, "cel");
  return m.constraints.map((c) => (c.resourceRules?.include ?? []).flatMap((r) => r.resources));
}

test("a ClusterPolicy matches by its compiled rules, autogen copies included", () => {
  const policy = compiled({
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name: "p" },
    spec: {
      rules: [
        {
          name: "r",
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          validate: { message: "m", pattern: { metadata: {} } },
        },
      ],
    },
  });
  const m = policyMatchOf(policy);
  assert.equal(m.language, "kyverno");
  assert.deepEqual(
    m.rules.map((r) => r.name),
    ["r", "autogen-r", "autogen-cronjob-r"],
  );
  assert.deepEqual(m.rules[0]?.matcher.kinds, ["Pod"]);
  assert.deepEqual(policyMatchNames(policy), ["r", "autogen-r", "autogen-cronjob-r"]);
});

test("a ValidatingPolicy matches by its matchConstraints, then each autogen copy's", () => {
  const policy = compiled({
    apiVersion: "policies.kyverno.io/v1",
    kind: "ValidatingPolicy",
    metadata: { name: "p" },
    spec: { matchConstraints: pods, validations: [{ expression: "true", message: "m" }] },
  });
  const [own, ...autogen] = resources(policy);
  assert.deepEqual(own, ["pods"]);
  assert.ok(autogen.length > 0, "pod controllers' copies");
  assert.ok(autogen.flat().includes("deployments"));
  assert.deepEqual(
    policyMatchNames(policy),
    [own, ...autogen].map(() => ""),
  );
});

test("a MutatingPolicy and a GeneratingPolicy match by their own bodies' matchConstraints", () => {
  const mpol = compiled({
    apiVersion: "policies.kyverno.io/v1",
    kind: "MutatingPolicy",
    metadata: { name: "m" },
    spec: {
      matchConstraints: pods,
      mutations: [{ patchType: "ApplyConfiguration", applyConfiguration: { expression: "Object{}" } }],
    },
  });
  assert.deepEqual(resources(mpol)[0], ["pods"]);
  const gpol = compiled({
    apiVersion: "policies.kyverno.io/v1",
    kind: "GeneratingPolicy",
    metadata: { name: "g" },
    spec: { matchConstraints: pods, generate: [{ expression: "true" }] },
  });
  assert.deepEqual(resources(gpol), [["pods"]]);
});

test("a kind Bylaw does not run has no matcher of its own: every request in its scope", () => {
  const policy = compiled({
    // v2alpha1: Kyverno 1.19's CLI reads v1alpha1, v1beta1 and v1 only, so Bylaw does not run it either.
    apiVersion: "admissionregistration.k8s.io/v2alpha1",
    kind: "MutatingAdmissionPolicy",
    metadata: { name: "map" },
    spec: { matchConstraints: pods, mutations: [] },
  });
  assert.deepEqual(policyMatchOf(policy), { language: "none" });
  assert.deepEqual(policyMatchNames(policy), []);
});
