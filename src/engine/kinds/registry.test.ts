import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { classify, kindDescriptor, POLICY_KINDS } from "./registry.js";

const doc = (apiVersion: string, kind: string) => ({ apiVersion, kind, metadata: { name: "p" } });

describe("classify (ADR 0005: one question every caller asks)", () => {
  test("the kyverno.io kinds are policies only under a kyverno.io apiVersion", () => {
    const c = classify(doc("kyverno.io/v1", "ClusterPolicy"));
    assert.ok(c.role === "policy");
    assert.equal(c.kind.language, "kyverno");
    assert.equal(c.kind.scope, "cluster");
    const p = classify(doc("kyverno.io/v2beta1", "Policy"));
    assert.ok(p.role === "policy" && p.kind.scope === "namespaced");
    assert.deepEqual(classify(doc("example.com/v1", "ClusterPolicy")), {
      role: "not-a-policy",
      reason: 'kind "ClusterPolicy" with apiVersion "example.com/v1" is not a Kyverno policy',
    });
  });

  test("the CEL kinds, their scope and language, and whether the webhook can serve them", () => {
    const v = classify(doc("policies.kyverno.io/v1", "NamespacedValidatingPolicy"));
    assert.ok(v.role === "policy");
    assert.deepEqual(
      [v.kind.language, v.kind.scope, v.kind.admission, v.kind.shortName],
      ["cel", "namespaced", "evaluated", "nvpol"],
    );
    const m = classify(doc("policies.kyverno.io/v1", "MutatingPolicy"));
    assert.ok(m.role === "policy");
    assert.deepEqual(
      [m.kind.language, m.kind.admission, m.kind.notServed, m.kind.shortName],
      ["mutating", "evaluated", undefined, "mpol"],
    );
    const nm = classify(doc("policies.kyverno.io/v1", "NamespacedMutatingPolicy"));
    assert.ok(nm.role === "policy");
    assert.deepEqual([nm.kind.language, nm.kind.scope, nm.kind.shortName], ["mutating", "namespaced", "nmpol"]);
    const iv = classify(doc("policies.kyverno.io/v1", "ImageValidatingPolicy"));
    assert.ok(iv.role === "policy");
    assert.deepEqual(
      [iv.kind.language, iv.kind.admission, iv.kind.notServed, iv.kind.shortName],
      ["image-validating", "evaluated", undefined, "ivpol"],
    );
    const niv = classify(doc("policies.kyverno.io/v1", "NamespacedImageValidatingPolicy"));
    assert.ok(niv.role === "policy");
    assert.deepEqual(
      [niv.kind.language, niv.kind.scope, niv.kind.shortName],
      ["image-validating", "namespaced", "nivpol"],
    );
    const c = classify(doc("kyverno.io/v2", "CleanupPolicy"));
    assert.ok(c.role === "policy" && c.kind.admission === "none" && c.kind.notServed !== undefined);
    // Served (the background component runs it), though it decides no admission request.
    const g = classify(doc("policies.kyverno.io/v1", "NamespacedGeneratingPolicy"));
    assert.ok(g.role === "policy");
    assert.deepEqual(
      [g.kind.language, g.kind.admission, g.kind.notServed !== undefined],
      ["generating", "none", false],
    );
    const vap = classify(doc("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"));
    assert.ok(vap.role === "policy" && vap.kind.boundBy === "ValidatingAdmissionPolicyBinding");
  });

  test("exceptions, bindings and what is not a policy", () => {
    assert.deepEqual(classify(doc("kyverno.io/v2", "PolicyException")), { role: "exception", language: "kyverno" });
    assert.deepEqual(classify(doc("policies.kyverno.io/v1", "PolicyException")), {
      role: "exception",
      language: "cel",
    });
    assert.deepEqual(classify(doc("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding")), {
      role: "binding",
      of: "ValidatingAdmissionPolicy",
    });
    assert.deepEqual(classify(doc("v1", "Pod")), {
      role: "not-a-policy",
      reason: 'kind "Pod" with apiVersion "v1" is not a Kyverno policy',
    });
    assert.deepEqual(classify([]), { role: "not-a-policy", reason: "document is not a mapping" });
  });

  test("a kind a letter or two from a policy kind names the kind meant", () => {
    assert.deepEqual(classify(doc("kyverno.io/v1", "ClusterPolcy")), {
      role: "not-a-policy",
      reason:
        'kind "ClusterPolcy" with apiVersion "kyverno.io/v1" is not a Kyverno policy; did you mean kind "ClusterPolicy"?',
      nearKinds: ["ClusterPolicy"],
    });
    const lower = classify(doc("policies.kyverno.io/v1", "validatingpolicy"));
    assert.ok(lower.role === "not-a-policy" && lower.nearKinds?.includes("ValidatingPolicy"));
  });

  test("every kind is registered once, and found by its name", () => {
    const names = POLICY_KINDS.map((k) => k.kind);
    assert.equal(new Set(names).size, names.length);
    assert.equal(names.length, 16);
    for (const k of POLICY_KINDS) assert.equal(kindDescriptor(k.kind), k);
    assert.equal(kindDescriptor("PolicyException"), undefined);
  });
});
