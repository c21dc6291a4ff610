import { test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../engine/index.js";
import { celGlobalContextProblems } from "./tenant-cel-reads.js";
import { tenantProblems } from "./tenant-problems.js";

const texts = (ps: { path: string; message: string }[]): string[] => ps.map((p) => `${p.path}: ${p.message}`);

test("tenant-isolation rule 3: every CEL expression of a namespaced document that names globalContext is refused, with its field", () => {
  const doc: JsonValue = {
    apiVersion: "policies.kyverno.io/v1",
    kind: "NamespacedValidatingPolicy",
    metadata: { name: "p", namespace: "tenant-a" },
    spec: {
      variables: [{ name: "cfg", expression: 'globalContext.Get("kube-system-cm", "")' }],
      matchConditions: [{ name: "m", expression: "globalContext . get('x') != null" }],
      validations: [
        { expression: "true", messageExpression: "string([globalContext][0].Get('y'))" },
        { expression: "has(object.data)", message: "globalContext in a message is only text" },
      ],
      auditAnnotations: [{ key: "k", valueExpression: "dyn(globalContext)" }],
    },
  };
  const text = texts(celGlobalContextProblems(doc, "tenant-a"));
  assert.deepEqual(
    text.map((t) => t.split(":")[0]),
    [
      "spec.variables[0].expression",
      "spec.matchConditions[0].expression",
      "spec.validations[0].messageExpression",
      "spec.auditAnnotations[0].valueExpression",
    ],
  );
  assert.match(text[0] ?? "", /namespace "tenant-a"\) reaches only its own namespace: globalContext is not allowed/);
  // The same through tenantProblems, which the policy webhook and `serve` run on every namespaced policy.
  assert.equal(tenantProblems(doc, "tenant-a").length, 4);
});

test("a cluster-wide document, and names that only contain the word, are not refused", () => {
  const doc: JsonValue = {
    spec: {
      validations: [{ expression: 'globalContext.Get("x", "")' }],
      variables: [{ name: "v", expression: "object.myglobalContext + object.globalContextual" }],
    },
  };
  assert.deepEqual(celGlobalContextProblems(doc, ""), []);
  assert.equal(celGlobalContextProblems(doc, "tenant-a").length, 1);
});
