#!/usr/bin/env node
/**
 * Generates src/engine/policy/known-fields-data.ts from Kyverno v1.19's ClusterPolicy and Policy CRDs
 * in ../shared/reference/kyverno-v1.19.0/config/crds/kyverno (relative to the repo root).
 *
 * Only the field names are kept: per object schema, its known properties, whether unknown ones are
 * allowed (`x-kubernetes-preserve-unknown-fields`) and the schema of list items and of map values
 * (`additionalProperties`). Kyverno's CLI loads policies through kubectl-validate against these CRDs
 * and refuses a document holding a field the schema does not know; Bylaw's policy check does the same
 * with this data. `metadata` is Kubernetes' ObjectMeta, which the CRDs leave untyped.
 *
 * Usage: node tools/gen-policy-fields.mjs [path/to/crds/kyverno]
 * `renderFieldsModule` is exported for the up-to-date test.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse } from "yaml";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const DEFAULT_INPUT = join(REPO_ROOT, "..", "shared", "reference", "kyverno-v1.19.0", "config", "crds", "kyverno");
export const CRD_FILES = ["kyverno.io_clusterpolicies.yaml", "kyverno.io_policies.yaml"];
export const OUTPUT = join(REPO_ROOT, "src", "engine", "policy", "known-fields-data.ts");

const OBJECT_META = [
  "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
  "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers", "managedFields",
];

/**
 * A node: `{f: {name: node}}` known fields (unknown ones are refused unless `o: 1`), `i` the node of
 * list items, `v` the node of map values. A node with nothing to check is 0. `status` is not
 * checked (Kyverno writes it; an exported policy may carry it).
 */
function reduce(schema) {
  if (schema === undefined || schema === null || typeof schema !== "object") return 0;
  const node = {};
  if (schema.properties !== undefined) {
    const f = {};
    for (const [name, child] of Object.entries(schema.properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) f[name] = reduce(child);
    node.f = f;
    if (schema["x-kubernetes-preserve-unknown-fields"] === true) node.o = 1;
  }
  if (schema.items !== undefined) {
    const items = reduce(schema.items);
    if (items !== 0) node.i = items;
  }
  if (typeof schema.additionalProperties === "object" && schema.additionalProperties !== null) {
    const values = reduce(schema.additionalProperties);
    if (values !== 0) node.v = values;
  }
  return Object.keys(node).length === 0 ? 0 : node;
}

/** `{"<kind>/<version>": node}` for every served version of each CRD. */
export function buildFieldsData(crds) {
  const out = {};
  for (const crd of crds) {
    const kind = crd.spec.names.kind;
    for (const version of crd.spec.versions) {
      if (version.served !== true) continue;
      const root = reduce(version.schema.openAPIV3Schema);
      if (root === 0 || root.f === undefined) continue;
      root.f.metadata = { f: Object.fromEntries(OBJECT_META.map((n) => [n, 0])) };
      // Kyverno writes status; a policy file carrying one is not refused for its fields here.
      if (root.f.status !== undefined) root.f.status = 0;
      // A version whose fields equal an earlier one's (Policy and ClusterPolicy share their schema) names it.
      const text = JSON.stringify(root);
      const same = Object.entries(out).find(([, n]) => typeof n !== "string" && JSON.stringify(n) === text);
      out[`${kind}/${version.name}`] = same === undefined ? root : same[0];
    }
  }
  return out;
}

/** The TypeScript module text for the parsed CRD documents. */
export function renderFieldsModule(crds) {
  const data = JSON.stringify(buildFieldsData(crds));
  return [
    "// GENERATED FILE: do not edit; run node tools/gen-policy-fields.mjs",
    "//",
    "// The field names of Kyverno v1.19's ClusterPolicy and Policy (config/crds/kyverno, every served",
    "// version), for the unknown-field check. Kyverno is Copyright The Kyverno Authors, licensed under",
    "// the Apache License, Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0).",
    "",
    "/** JSON: {\"<kind>/<version>\": FieldNode, or the \"<kind>/<version>\" whose fields it shares}; see known-fields.ts. */",
    `export const KNOWN_FIELDS_JSON = '${data.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}';`,
    "",
  ].join("\n");
}

export function readCrds(dir = DEFAULT_INPUT) {
  return CRD_FILES.map((f) => parse(readFileSync(join(dir, f), "utf8")));
}

function main() {
  const text = renderFieldsModule(readCrds(process.argv[2] ?? DEFAULT_INPUT));
  writeFileSync(OUTPUT, text);
  process.stdout.write(`wrote ${OUTPUT} (${text.length} bytes)\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
