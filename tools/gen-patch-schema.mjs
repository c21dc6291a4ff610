#!/usr/bin/env node
/**
 * Generates src/engine/mutate/strategic/schema-data.ts from the Kubernetes patch metadata in
 * ../shared/spec/kubernetes-openapi/patch-metadata.json (relative to the repo root).
 *
 * Only what strategic merge needs is kept: definitions reachable from a group/version/kind root, and
 * in them only the fields that carry a patch strategy or merge key, or that lead (through `ref`,
 * `items` or `values`) to a definition holding such fields. Every kind keeps its root definition,
 * even an empty one, so that "known kind" stays distinguishable from "custom resource".
 *
 * Usage: node tools/gen-patch-schema.mjs [path/to/patch-metadata.json]
 * Plain Node ESM, no dependencies. `renderSchemaModule` is exported for the up-to-date test.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const DEFAULT_INPUT = join(REPO_ROOT, "..", "shared", "spec", "kubernetes-openapi", "patch-metadata.json");
export const OUTPUT = join(REPO_ROOT, "src", "engine", "mutate", "strategic", "schema-data.ts");

/** Does this field itself matter to a strategic merge (a strategy or merge key)? */
function isStrategic(field) {
  return typeof field.strategy === "string" || typeof field.mergeKey === "string";
}

/** The definition a field leads to, if any. */
function target(field) {
  return field.ref ?? field.items ?? field.values;
}

/** Names of the definitions that hold (directly or through their fields) strategic fields. */
function interestingDefinitions(definitions) {
  const interesting = new Set();
  let changed = true;
  while (changed) {
    changed = false;
    for (const [name, def] of Object.entries(definitions)) {
      if (interesting.has(name)) continue;
      const fields = Object.values(def.fields ?? {});
      if (fields.some((f) => isStrategic(f) || interesting.has(target(f)))) {
        interesting.add(name);
        changed = true;
      }
    }
  }
  return interesting;
}

/** The compact form of one kept field. */
function compactField(field, interesting) {
  const out = {};
  if (field.list === true) out.list = 1;
  if (typeof field.strategy === "string") out.strategy = field.strategy;
  if (typeof field.mergeKey === "string") out.mergeKey = field.mergeKey;
  const keys = Array.isArray(field.listMapKeys) ? field.listMapKeys : [];
  if (keys.length > 0 && !(keys.length === 1 && keys[0] === field.mergeKey)) out.keys = [...keys];
  for (const k of ["ref", "items", "values"]) {
    if (typeof field[k] === "string" && interesting.has(field[k])) out[k] = field[k];
  }
  return out;
}

/** The compact data: { kinds: {definition: ["apps/v1/Deployment", ...]}, defs: {definition: {field: ...}} }. */
export function buildSchemaData(metadata) {
  const definitions = metadata.definitions ?? {};
  const interesting = interestingDefinitions(definitions);
  const kinds = {};
  const claimed = new Set();
  for (const name of Object.keys(definitions).sort()) {
    const gvks = (definitions[name].gvk ?? []).filter((g) => !claimed.has(g)).sort();
    if (gvks.length === 0) continue;
    for (const g of gvks) claimed.add(g);
    kinds[name] = gvks;
  }
  const roots = Object.keys(kinds);
  const defs = {};
  const queue = [...new Set(roots)];
  while (queue.length > 0) {
    const name = queue.shift();
    if (defs[name] !== undefined) continue;
    const fields = {};
    const source = definitions[name]?.fields ?? {};
    for (const fieldName of Object.keys(source).sort()) {
      const field = source[fieldName];
      if (!isStrategic(field) && !interesting.has(target(field))) continue;
      const compact = compactField(field, interesting);
      fields[fieldName] = compact;
      for (const k of ["ref", "items", "values"]) if (compact[k] !== undefined) queue.push(compact[k]);
    }
    defs[name] = fields;
  }
  const sortedDefs = Object.fromEntries(
    Object.keys(defs)
      .sort()
      .map((k) => [k, defs[k]]),
  );
  return { kinds, defs: sortedDefs };
}

/** A single-quoted TypeScript string literal (JSON text needs no escaping for its double quotes). */
function singleQuoted(text) {
  return `'${text.replace(/[\\']/g, (c) => `\\${c}`).replace(/\n/g, "\\n")}'`;
}

/** The TypeScript module text for `metadata` (the parsed patch-metadata.json). */
export function renderSchemaModule(metadata) {
  const data = JSON.stringify(buildSchemaData(metadata));
  const source = String(metadata.source ?? "unknown source").replace(/\*\//g, "* /");
  return [
    "// GENERATED FILE: do not edit; run node tools/gen-patch-schema.mjs",
    "//",
    "// Kubernetes strategic-merge patch metadata (patch strategies, merge keys and the type references",
    "// leading to them), reduced to what a strategic merge needs.",
    `// Source: ${source}`,
    "// The Kubernetes OpenAPI document is Copyright The Kubernetes Authors, licensed under the",
    "// Apache License, Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0).",
    "",
    '/** JSON: {"kinds": {definition: ["<apiVersion>/<kind>", ...]}, "defs": {definition: {field: FieldData}}}. */',
    `export const SCHEMA_DATA_JSON = ${singleQuoted(data)};`,
    "",
  ].join("\n");
}

function main() {
  const input = process.argv[2] ?? DEFAULT_INPUT;
  const metadata = JSON.parse(readFileSync(input, "utf8"));
  const text = renderSchemaModule(metadata);
  writeFileSync(OUTPUT, text);
  process.stdout.write(`wrote ${OUTPUT} (${text.length} bytes)\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();
