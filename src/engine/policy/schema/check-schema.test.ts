import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { JsonValue } from "../../api/json.js";
import { fieldPath, schemaProblems } from "./check-schema.js";

const policy = (spec: object, apiVersion = "kyverno.io/v1", kind = "ClusterPolicy") => ({
  apiVersion,
  kind,
  metadata: { name: "p" },
  spec,
});
const found = (doc: object) => (schemaProblems(doc as JsonValue) ?? []).map((p) => `${p.path}: ${p.message}`);
const paths = (doc: object) => (schemaProblems(doc as JsonValue) ?? []).map((p) => p.path);
const rule = {
  name: "r",
  match: { any: [{ resources: { kinds: ["Pod"] } }] },
  validate: { pattern: { spec: { anything: { goes: 1 } } } },
};

test("a misspelled key is named at its path as the API server words it, with the field it probably means", () => {
  assert.deepEqual(found(policy({ rules: [{ ...rule, validate: undefined, validat: {} }] })), [
    'spec.rules[0].validat: field not declared in schema; did you mean "validate"?',
  ]);
});

test("unknown keys at every level the schema closes: spec, rule, match filter, context entry, metadata, foreach", () => {
  const doc = policy({
    rulez: [],
    rules: [
      {
        ...rule,
        match: { any: [{ resources: { kinds: ["Pod"], namespace: "x" } }] },
        context: [{ name: "c", variable: { value: 1, jmespath: "a" } }],
        validate: { foreach: [{ list: "x", patern: {} }] },
      },
    ],
  });
  (doc as { metadata: object }).metadata = { name: "p", label: {} };
  assert.deepEqual(paths(doc).sort(), [
    "metadata.label",
    "spec.rules[0].context[0].variable.jmespath",
    "spec.rules[0].match.any[0].resources.namespace",
    "spec.rules[0].validate.foreach[0].patern",
    "spec.rulez",
  ]);
});

test("a mistyped value is reported with the type the schema wants", () => {
  assert.deepEqual(found(policy({ background: "string", rules: [rule] })), [
    'spec.background: Invalid value: "string": spec.background in body must be of type boolean',
  ]);
  assert.deepEqual(found(policy({ rules: { name: "r" } })), [
    'spec.rules: Invalid value: "object": spec.rules in body must be of type array',
  ]);
  assert.deepEqual(found({ ...policy({ rules: [rule] }), metadata: { name: "p", labels: { a: 1 } } }), [
    'metadata.labels.a: Invalid value: "integer": metadata.labels.a in body must be of type string',
  ]);
});

test("enums, required fields, length limits and exclusive choices are the CRD's", () => {
  assert.deepEqual(found(policy({ validationFailureAction: "Block", rules: [rule] })), [
    'spec.validationFailureAction: Unsupported value: "Block": supported values: "audit", "enforce", "Audit", "Enforce"',
  ]);
  assert.deepEqual(found(policy({ rules: [{ name: "r", validate: rule.validate }] })), [
    "spec.rules[0].match: Required value",
  ]);
  assert.deepEqual(found(policy({ rules: [{ ...rule, name: "r".repeat(64) }] })), [
    "spec.rules[0].name: Too long: may not be more than 63 characters",
  ]);
  const both = found(
    policy({ rules: [{ ...rule, context: [{ name: "c", variable: { value: 1 }, configMap: { name: "m" } }] }] }),
  );
  assert.equal(both.length, 1);
  assert.match(
    both[0] ?? "",
    /^spec\.rules\[0\]\.context\[0\]: .*oneOf.*set exactly one of "configMap", "apiCall", "imageRegistry", "variable", "globalReference" \(found "configMap", "variable"\)/,
  );
  const anyAndAll = found(policy({ rules: [{ ...rule, match: { any: [], all: [] } }] }));
  assert.deepEqual(anyAndAll, [
    'spec.rules[0].match: Invalid value: "object": spec.rules[0].match in body must not validate the schema (not): "any" and "all" may not be set together',
  ]);
});

test("schemaless places (pattern, generate data, preconditions, annotations), status and null fields accept anything", () => {
  const doc = {
    ...policy({
      rules: [
        rule,
        {
          name: "g",
          match: rule.match,
          exclude: null,
          preconditions: null,
          generate: { kind: "ConfigMap", name: "x", data: { any: { thing: 1 } } },
        },
      ],
    }),
    status: { whatever: true },
  };
  (doc.metadata as Record<string, unknown>)["annotations"] = { "a/b": "c" };
  assert.deepEqual(found(doc), []);
});

test("each served version has its own schema; kinds and versions without one are not checked here", () => {
  assert.deepEqual(paths(policy({ rules: [rule] }, "kyverno.io/v2beta1", "Policy")), []);
  assert.deepEqual(
    paths(policy({ rules: [{ ...rule, validate: { ...rule.validate, failureAction: "Audit" } }] }, "kyverno.io/v1")),
    [],
  );
  assert.equal(schemaProblems({ apiVersion: "kyverno.io/v9", kind: "ClusterPolicy", spec: {} }), undefined);
  assert.equal(schemaProblems({ apiVersion: "policies.kyverno.io/v1", kind: "ClusterPolicy", spec: {} }), undefined);
  assert.equal(
    schemaProblems({ apiVersion: "admissionregistration.k8s.io/v1", kind: "ValidatingAdmissionPolicy", spec: {} }),
    undefined,
  );
  // NamespacedValidatingPolicy is served at v1beta1 and v1 only.
  assert.equal(
    schemaProblems({ apiVersion: "policies.kyverno.io/v1alpha1", kind: "NamespacedValidatingPolicy", spec: {} }),
    undefined,
  );
});

test("policies.kyverno.io kinds are checked against their own CRDs, at every served version", () => {
  const vpol = (apiVersion: string, spec: object) => ({
    apiVersion,
    kind: "ValidatingPolicy",
    metadata: { name: "v" },
    spec,
  });
  for (const version of ["v1alpha1", "v1beta1", "v1"])
    assert.deepEqual(found(vpol(`policies.kyverno.io/${version}`, { validatons: [] })), [
      'spec.validatons: field not declared in schema; did you mean "validations"?',
    ]);
  assert.deepEqual(found(vpol("policies.kyverno.io/v1", { evaluation: { background: { enabled: "yes" } } })), [
    'spec.evaluation.background.enabled: Invalid value: "string": spec.evaluation.background.enabled in body must be of type boolean',
  ]);
  assert.deepEqual(
    found({ apiVersion: "policies.kyverno.io/v1", kind: "ImageValidatingPolicy", metadata: { name: "i" }, spec: {} }),
    ["spec.attestors: Required value", "spec.validations: Required value"],
  );
});

test("the two PolicyException kinds are told apart by group", () => {
  const spec = { policyRef: [{ name: "p", kind: "ValidatingPolicy" }] };
  const exception = (apiVersion: string) => ({ apiVersion, kind: "PolicyException", metadata: { name: "e" }, spec });
  assert.deepEqual(found(exception("policies.kyverno.io/v1")).sort(), [
    'spec.policyRef: field not declared in schema; did you mean "policyRefs"?',
    "spec.policyRefs: Required value",
  ]);
  assert.deepEqual(paths(exception("kyverno.io/v2")).sort(), ["spec.exceptions", "spec.match", "spec.policyRef"]);
});

test("PolicyException and CleanupPolicy documents are checked against their own CRDs", () => {
  const exception = {
    apiVersion: "kyverno.io/v2",
    kind: "PolicyException",
    metadata: { name: "e" },
    spec: { exceptions: [{ policyName: "p", ruleNames: ["r"] }], match: { any: [] }, backgroud: true },
  };
  assert.deepEqual(found(exception), ['spec.backgroud: field not declared in schema; did you mean "background"?']);
  const cleanup = {
    apiVersion: "kyverno.io/v2",
    kind: "ClusterCleanupPolicy",
    metadata: { name: "c" },
    spec: { match: { any: [] }, schedule: 5 },
  };
  assert.deepEqual(found(cleanup), [
    'spec.schedule: Invalid value: "integer": spec.schedule in body must be of type string',
  ]);
});

test("field paths tell list indexes from map keys that look like numbers", () => {
  const doc = { spec: { rules: [{ name: "a" }] }, metadata: { labels: { "0": "x" } } } as JsonValue;
  assert.equal(fieldPath("/spec/rules/0/name", doc), "spec.rules[0].name");
  assert.equal(fieldPath("/metadata/labels/0", doc), "metadata.labels.0");
  assert.equal(fieldPath("/metadata/annotations/a~1b", doc), "metadata.annotations.a/b");
});

/** The repo root: the nearest ancestor holding the generator (works from src and dist). */
function repoRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "tools", "gen-policy-schemas.mjs")) && existsSync(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

interface Generator {
  convert: (schema: object) => object;
  DEFAULT_INPUT: string;
  readCrds(dir: string): unknown[];
  renderValidatorsModule(crds: unknown[]): string;
}

test("validators-data.ts is what tools/gen-policy-schemas.mjs generates from the shared CRDs", async (t) => {
  const root = repoRoot();
  if (root === undefined) return t.skip("generator not found");
  const generator = (await import(pathToFileURL(join(root, "tools", "gen-policy-schemas.mjs")).href)) as Generator;
  if (!existsSync(generator.DEFAULT_INPUT))
    return t.skip(`${generator.DEFAULT_INPUT} is not present: cannot check validators-data.ts is up to date`);
  const expected = generator.renderValidatorsModule(generator.readCrds(generator.DEFAULT_INPUT));
  const actual = readFileSync(join(root, "src", "engine", "policy", "schema", "validators-data.ts"), "utf8");
  assert.ok(actual === expected, "validators-data.ts is stale: run node tools/gen-policy-schemas.mjs");
});

test("the generator honours structural-schema markers: preserve-unknown-fields, int-or-string, nullable, pruned nulls", async (t) => {
  const root = repoRoot();
  if (root === undefined) return t.skip("generator not found");
  const { convert } = (await import(pathToFileURL(join(root, "tools", "gen-policy-schemas.mjs")).href)) as Generator;
  const crd = {
    type: "object",
    description: "dropped",
    properties: {
      port: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
      note: { type: "string", nullable: true },
      open: {
        type: "object",
        "x-kubernetes-preserve-unknown-fields": true,
        properties: { known: { type: "string", format: "date-time" } },
      },
      items: { type: "array", items: { type: "object", properties: { a: { type: "boolean" } } } },
    },
  };
  assert.deepEqual(convert(crd), {
    type: "object",
    additionalProperties: false,
    properties: {
      port: {
        type: ["integer", "string", "null"],
        if: { type: "null" },
        else: { anyOf: [{ type: "integer" }, { type: "string" }] },
      },
      note: { type: ["string", "null"] },
      open: { type: ["object", "null"], properties: { known: { type: ["string", "null"] } } },
      items: {
        type: ["array", "null"],
        items: { type: "object", additionalProperties: false, properties: { a: { type: ["boolean", "null"] } } },
      },
    },
  });
});
