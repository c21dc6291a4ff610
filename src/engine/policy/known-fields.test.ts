import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { unknownFields } from "./known-fields.js";

const policy = (spec: object, apiVersion = "kyverno.io/v1", kind = "ClusterPolicy") => ({ apiVersion, kind, metadata: { name: "p" }, spec });
const paths = (doc: object) => unknownFields(doc as never).map((p) => p.path);
const rule = { name: "r", match: { any: [{ resources: { kinds: ["Pod"] } }] }, validate: { pattern: { spec: { anything: { goes: 1 } } } } };

test("a misspelled key is named at its path, with the field it probably means", () => {
  const found = unknownFields(policy({ rules: [{ ...rule, validate: undefined, validat: {} }] }) as never);
  assert.deepEqual(found.map((p) => p.path), ["spec.rules[0].validat"]);
  assert.match(found[0]?.message ?? "", /unknown field "validat" .*did you mean "validate"\?/);
});

test("unknown keys at every level the schema closes: spec, rule, match filter, context entry, metadata, foreach", () => {
  const doc = policy({
    rulez: [],
    rules: [{
      ...rule,
      match: { any: [{ resources: { kinds: ["Pod"], namespace: "x" } }] },
      context: [{ name: "c", variable: { value: 1, jmespath: "a" } }],
      validate: { foreach: [{ list: "x", patern: {} }] },
    }],
  });
  (doc as { metadata: object }).metadata = { name: "p", label: {} };
  assert.deepEqual(paths(doc).sort(), [
    "metadata.label", "spec.rules[0].context[0].variable.jmespath", "spec.rules[0].match.any[0].resources.namespace",
    "spec.rules[0].validate.foreach[0].patern", "spec.rulez",
  ]);
});

test("schemaless places (pattern, generate data, preconditions, annotations) and status accept anything", () => {
  const doc = { ...policy({ rules: [rule, { name: "g", match: rule.match, generate: { kind: "ConfigMap", name: "x", data: { any: { thing: 1 } } } }] }), status: { whatever: true } };
  (doc.metadata as Record<string, unknown>)["annotations"] = { "a/b": "c" };
  assert.deepEqual(paths(doc), []);
});

test("each served version has its own fields; other kinds are not checked here", () => {
  assert.deepEqual(paths(policy({ rules: [rule] }, "kyverno.io/v2beta1", "Policy")), []);
  assert.deepEqual(paths({ apiVersion: "policies.kyverno.io/v1", kind: "ValidatingPolicy", spec: { x: 1 } }), []);
});

/** The repo root: the nearest ancestor holding the generator (works from src and dist). */
function repoRoot(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "tools", "gen-policy-fields.mjs")) && existsSync(join(dir, "package.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

interface Generator {
  DEFAULT_INPUT: string;
  readCrds(dir: string): unknown[];
  renderFieldsModule(crds: unknown[]): string;
}

test("known-fields-data.ts is what tools/gen-policy-fields.mjs generates from the shared CRDs", async (t) => {
  const root = repoRoot();
  if (root === undefined) return t.skip("generator not found");
  const generator = (await import(pathToFileURL(join(root, "tools", "gen-policy-fields.mjs")).href)) as Generator;
  if (!existsSync(generator.DEFAULT_INPUT)) return t.skip(`${generator.DEFAULT_INPUT} is not present: cannot check known-fields-data.ts is up to date`);
  const expected = generator.renderFieldsModule(generator.readCrds(generator.DEFAULT_INPUT));
  const actual = readFileSync(join(root, "src", "engine", "policy", "known-fields-data.ts"), "utf8");
  assert.ok(actual === expected, "known-fields-data.ts is stale: run node tools/gen-policy-fields.mjs");
});
