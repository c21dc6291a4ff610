/** `bylaw serve` refuses a CEL policy whose operations the API server never sends, naming the field (operation-problems.ts). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createEngine, type JsonObject } from "../../engine/index.js";
import { fakePorts } from "../../../test/support/fake-ports.js";
import { compileCelPolicy } from "../policy-source/cel-policy-compile.js";
import { operationProblems } from "./operation-problems.js";

const engine = createEngine(fakePorts());

function load(kind: string, matchConstraints: JsonObject): string[] {
  const doc = {
    apiVersion: "policies.kyverno.io/v1",
    kind,
    metadata: { name: "p", ...(kind.startsWith("Namespaced") ? { namespace: "team-a" } : {}) },
    spec: { validations: [{ expression: "true" }], matchConstraints },
  };
  return compileCelPolicy(doc, engine, operationProblems).problems.map((p) => `${p.path}: ${p.message}`);
}

const rule = (operations: string[]): JsonObject => ({
  apiGroups: [""],
  apiVersions: ["v1"],
  operations,
  resources: ["pods"],
});

test("an operation the API server never sends, in a rule or an exclusion, makes the policy invalid, naming it", () => {
  assert.deepEqual(load("ValidatingPolicy", { resourceRules: [rule(["CREATE", "CRAETE"])] }), [
    'spec.matchConstraints.resourceRules[0].operations[1]: Unsupported value: "CRAETE": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE" (no request ever has it, so the rule would never be registered nor the policy evaluated)',
  ]);
  assert.match(
    load("NamespacedValidatingPolicy", {
      resourceRules: [rule(["CREATE"])],
      excludeResourceRules: [rule(["create"])],
    }).join(),
    /excludeResourceRules\[0\]\.operations\[0\]: Unsupported value: "create"/,
  );
  assert.deepEqual(load("ValidatingPolicy", { resourceRules: [rule(["*", "CREATE"])] }), [
    'spec.matchConstraints.resourceRules[0].operations: Invalid value: ["*","CREATE"]: if \'*\' is present, must not specify other operations',
  ]);
});

test("the four operations, or * alone, are what the API server sends: nothing to refuse", () => {
  assert.deepEqual(
    load("ValidatingPolicy", { resourceRules: [rule(["CREATE", "UPDATE", "DELETE", "CONNECT"]), rule(["*"])] }),
    [],
  );
});
