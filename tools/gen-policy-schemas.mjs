#!/usr/bin/env node
/**
 * Generates src/engine/policy/schema/validators-data.ts from Kyverno v1.19's CRDs in
 * ../shared/reference/kyverno-v1.19.0/config/crds (relative to the repo root): one ajv standalone
 * validation function per served group/version/kind of
 * - kyverno.io (crds/kyverno): ClusterPolicy, Policy, PolicyException, CleanupPolicy,
 *   ClusterCleanupPolicy;
 * - policies.kyverno.io (crds/policies.kyverno.io): ValidatingPolicy, MutatingPolicy,
 *   ImageValidatingPolicy, GeneratingPolicy, DeletingPolicy, their Namespaced kinds, and
 *   PolicyException (v1alpha1, v1beta1 and v1 where served),
 * so loading Bylaw compiles no schema at run time. The two PolicyException kinds are told apart by
 * group: the table is keyed by apiVersion and kind ("policies.kyverno.io/v1/PolicyException").
 *
 * The CRD's OpenAPI v3 schema is structural (Kubernetes' rules); it becomes JSON Schema thus:
 * - an object schema with `properties` refuses other fields (`additionalProperties: false`), as
 *   `kubectl apply --validate=strict` and Kyverno's CLI refuse them, unless it has
 *   `x-kubernetes-preserve-unknown-fields: true`;
 * - `x-kubernetes-int-or-string: true` accepts an integer or a string;
 * - `nullable: true` accepts null; so does every field (a property): the API server prunes a null
 *   field that is not nullable before it validates, so `exclude: null` or an empty `preconditions:`
 *   is the field left out;
 * - `description`, `default`, `format` (int32, int64, date-time) and the `x-kubernetes-list-*` /
 *   `map-type` markers are dropped: they describe, default or de-duplicate, and never refused a
 *   policy Bylaw loads today;
 * - `metadata` is Kubernetes' ObjectMeta (the CRDs leave it untyped); `status` is not checked.
 *
 * Repeated sub-schemas (match blocks, matchConstraints, variables, …) are one `$defs` entry.
 *
 * Usage: node tools/gen-policy-schemas.mjs [path/to/config/crds]
 * `renderValidators` is exported for the up-to-date test (src/engine/policy/schema/validators-data.test.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Ajv from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import { parse } from "yaml";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const DEFAULT_INPUT = join(REPO_ROOT, "..", "shared", "reference", "kyverno-v1.19.0", "config", "crds");
/** The CRD files under config/crds, in the order their schemas are generated. */
export const CRD_FILES = [
  "kyverno/kyverno.io_clusterpolicies.yaml",
  "kyverno/kyverno.io_policies.yaml",
  "kyverno/kyverno.io_policyexceptions.yaml",
  "kyverno/kyverno.io_cleanuppolicies.yaml",
  "kyverno/kyverno.io_clustercleanuppolicies.yaml",
  ...[
    "validatingpolicies",
    "namespacedvalidatingpolicies",
    "mutatingpolicies",
    "namespacedmutatingpolicies",
    "imagevalidatingpolicies",
    "namespacedimagevalidatingpolicies",
    "generatingpolicies",
    "namespacedgeneratingpolicies",
    "deletingpolicies",
    "namespaceddeletingpolicies",
    "policyexceptions",
  ].map((plural) => `policies.kyverno.io/policies.kyverno.io_${plural}.yaml`),
];
export const OUTPUT = join(REPO_ROOT, "src", "engine", "policy", "schema", "validators-data.ts");

const STRING_MAP = { type: "object", additionalProperties: { type: "string" } };
/** Kubernetes' ObjectMeta, as far as a policy file carries it. */
const OBJECT_META = {
  type: "object",
  additionalProperties: false,
  properties: {
    name: { type: "string" },
    generateName: { type: "string" },
    namespace: { type: "string" },
    selfLink: { type: "string" },
    uid: { type: "string" },
    resourceVersion: { type: "string" },
    generation: { type: "integer" },
    creationTimestamp: { type: ["string", "null"] },
    deletionTimestamp: { type: ["string", "null"] },
    deletionGracePeriodSeconds: { type: "integer" },
    labels: STRING_MAP,
    annotations: STRING_MAP,
    ownerReferences: { type: "array", items: { type: "object" } },
    finalizers: { type: "array", items: { type: "string" } },
    managedFields: { type: "array", items: { type: "object" } },
  },
};

const DROPPED = new Set([
  "description",
  "default",
  "format",
  "example",
  "externalDocs",
  "x-kubernetes-list-type",
  "x-kubernetes-list-map-keys",
  "x-kubernetes-map-type",
  "x-kubernetes-embedded-resource",
  "x-kubernetes-validations",
]);

/** One structural schema node to JSON Schema. `combinator` is true inside oneOf/anyOf/allOf/not (validation only). */
export function convert(schema, combinator = false) {
  if (schema === null || typeof schema !== "object") return {};
  const out = {};
  const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true;
  for (const [key, value] of Object.entries(schema)) {
    if (
      DROPPED.has(key) ||
      key === "x-kubernetes-preserve-unknown-fields" ||
      key === "x-kubernetes-int-or-string" ||
      key === "nullable"
    )
      continue;
    if (key === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, child]) => [name, orNull(convert(child, combinator))]),
      );
    } else if (key === "items" || key === "not") {
      out[key] = convert(value, combinator || key === "not");
    } else if (key === "additionalProperties") {
      out[key] = typeof value === "object" ? convert(value, combinator) : value;
    } else if (key === "oneOf" || key === "anyOf" || key === "allOf") {
      out[key] = value.map((s) => convert(s, true));
    } else {
      out[key] = value;
    }
  }
  if (schema["x-kubernetes-int-or-string"] === true) {
    delete out.type;
    out.type = ["integer", "string"];
  }
  if (!combinator && out.properties !== undefined && out.additionalProperties === undefined && !preserve)
    out.additionalProperties = false;
  if (schema.nullable === true && out.type !== undefined)
    out.type = [...(Array.isArray(out.type) ? out.type : [out.type]), "null"];
  if (schema.nullable === true && Array.isArray(out.enum)) out.enum = [...out.enum, null];
  return out;
}

/** A field's schema that also accepts null (pruned as absent by the API server). */
function orNull(schema) {
  if (schema.type === undefined) return schema;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const out = { ...schema, type: types.includes("null") ? types : [...types, "null"] };
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  // A null field is absent: `not`/`oneOf` (which `required` branches hold) apply to a value only.
  const then = {};
  for (const k of ["not", "oneOf", "anyOf", "allOf"]) {
    if (out[k] !== undefined) {
      then[k] = out[k];
      delete out[k];
    }
  }
  if (Object.keys(then).length > 0) {
    out.if = { type: "null" };
    out.else = then;
  }
  return out;
}

/** Sub-schemas at least this long (JSON characters) that occur twice or more are shared through `$defs`. */
const SHARE_AT = 80;
/** Where a sub-schema sits in a structural schema (not inside oneOf/anyOf/allOf/not). */
function children(node) {
  const out = [];
  if (node.properties !== undefined) for (const name of Object.keys(node.properties)) out.push([node.properties, name]);
  if (typeof node.items === "object") out.push([node, "items"]);
  if (typeof node.additionalProperties === "object") out.push([node, "additionalProperties"]);
  return out;
}

/**
 * `{schemas: {"<group>/<version>/<kind>": JSON Schema}, aliases: {"<group>/<version>/<kind>": the
 * key whose schema it shares}, defs}`: every served version of each CRD. Repeated sub-schemas
 * (match blocks, context entries, foreach, matchConstraints, variables…) become one `$defs` entry,
 * so the generated code holds each check once.
 */
export function buildSchemas(crds) {
  const schemas = {};
  const aliases = {};
  for (const crd of crds) {
    const kind = crd.spec.names.kind;
    for (const version of crd.spec.versions) {
      if (version.served !== true) continue;
      const root = convert(version.schema.openAPIV3Schema);
      root.properties.metadata = OBJECT_META;
      if (root.properties.status !== undefined) root.properties.status = {};
      const key = `${crd.spec.group}/${version.name}/${kind}`;
      const text = JSON.stringify(root);
      const same = Object.entries(schemas).find(([, s]) => JSON.stringify(s) === text);
      if (same !== undefined) aliases[key] = same[0];
      else schemas[key] = root;
    }
  }
  const counts = new Map();
  const count = (node) => {
    for (const [holder, key] of children(node)) count(holder[key]);
    const text = JSON.stringify(node);
    if (text.length >= SHARE_AT) counts.set(text, (counts.get(text) ?? 0) + 1);
  };
  Object.values(schemas).forEach(count);
  const defs = {};
  const names = new Map();
  const share = (node) => {
    for (const [holder, key] of children(node)) {
      const child = holder[key];
      const text = JSON.stringify(child);
      if ((counts.get(text) ?? 0) < 2) {
        share(child);
        continue;
      }
      let name = names.get(text);
      if (name === undefined) {
        name = `d${names.size}`;
        names.set(text, name);
        share(child);
        defs[name] = child;
      }
      holder[key] = { $ref: `${DEFS_ID}#/$defs/${name}` };
    }
  };
  Object.values(schemas).forEach(share);
  return { schemas, aliases, defs };
}

export const DEFS_ID = "defs";

export function readCrds(dir = DEFAULT_INPUT) {
  return CRD_FILES.map((f) => parse(readFileSync(join(dir, f), "utf8")));
}

/** Kubernetes counts string lengths in characters (code points), not UTF-16 units. */
const UCS2LENGTH = "function ucs2length(s) { let n = 0; for (const _ of s) n++; return n; }";

/** The TypeScript module text: ajv standalone code (no imports, no eval), and the table of validators by group/version/kind. */
export function renderValidatorsModule(crds) {
  const { schemas, aliases, defs } = buildSchemas(crds);
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    inlineRefs: false,
    strictSchema: true,
    strictRequired: false,
    strictTypes: false,
    code: { source: true, esm: true, optimize: true, lines: false },
  });
  ajv.addSchema({ $id: DEFS_ID, $defs: defs });
  const id = (key) => key.replace(/[./]/g, "_");
  for (const [key, schema] of Object.entries(schemas)) ajv.addSchema({ ...schema, $id: id(key) });
  let code = standaloneCode(ajv, Object.fromEntries(Object.keys(schemas).map((k) => [id(k), id(k)])));
  code = code
    .replace(/^"use strict";/, "")
    .replace(/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, "ucs2length")
    .replace(/export const /g, "const ");
  if (/\brequire\(|\bimport\b/.test(code))
    throw new Error("ajv standalone code needs a runtime module; inline it in gen-policy-schemas.mjs");
  const table = [
    ...Object.keys(schemas).map((k) => `  ${JSON.stringify(k)}: ${id(k)},`),
    ...Object.entries(aliases).map(([k, of]) => `  ${JSON.stringify(k)}: ${id(of)},`),
  ];
  return [
    "// GENERATED FILE: do not edit; run node tools/gen-policy-schemas.mjs",
    "//",
    "// Validators for the OpenAPI v3 schemas of Kyverno v1.19's CRDs, every served version:",
    "// kyverno.io ClusterPolicy, Policy, PolicyException, CleanupPolicy and ClusterCleanupPolicy",
    "// (config/crds/kyverno); policies.kyverno.io ValidatingPolicy, MutatingPolicy,",
    "// ImageValidatingPolicy, GeneratingPolicy, DeletingPolicy, their Namespaced kinds and",
    "// PolicyException (config/crds/policies.kyverno.io). Compiled by ajv (standalone code); the CRDs'",
    "// x-kubernetes-validations (CEL rules) are not part of them. Kyverno is Copyright The Kyverno",
    "// Authors, licensed under the Apache License, Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0).",
    "/* eslint-disable */",
    "// @ts-nocheck",
    'import type { SchemaValidator } from "./types.js";',
    UCS2LENGTH,
    code.trim(),
    "",
    '/** The validator of each "<group>/<version>/<kind>" (versions sharing one schema share one function). */',
    "export const VALIDATORS: Readonly<Record<string, SchemaValidator>> = {",
    ...table,
    "};",
    "",
  ].join("\n");
}

function main() {
  const text = renderValidatorsModule(readCrds(process.argv[2] ?? DEFAULT_INPUT));
  writeFileSync(OUTPUT, text);
  process.stdout.write(`wrote ${OUTPUT} (${text.length} bytes)\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
