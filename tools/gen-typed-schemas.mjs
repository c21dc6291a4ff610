#!/usr/bin/env node
/**
 * Generates src/engine/mutate/typed/typed-schema-data.ts: the structure of Kubernetes' built-in
 * kinds as structured-merge-diff types, from the OpenAPI v3 documents Kyverno v1.19's CLI reads
 * for them (kubectl-validate's hardcoded builtins for Kubernetes 1.32, `NewHardcodedBuiltins("1.32")`
 * in cmd/cli/kubectl-kyverno/processor). A MutatingPolicy's ApplyConfiguration is converted to a
 * typed object with them: an undeclared field or a scalar of the wrong type is an error, and an
 * atomic list or map may not be mutated.
 *
 * The conversion follows Kubernetes' OpenAPI → structured-merge-diff rules (kube-openapi's
 * schemaconv): an object's properties are its fields; `additionalProperties` (or no properties at
 * all, or x-kubernetes-preserve-unknown-fields) types the other keys, otherwise there are none; a
 * list is atomic unless x-kubernetes-list-type (set, map with x-kubernetes-list-map-keys) or a
 * merge patch strategy (with its merge key) makes it associative; x-kubernetes-map-type atomic marks
 * a map atomic; integer and number are numeric, a string with a format other than byte is any
 * scalar; a schema without a type accepts anything.
 *
 * Encoding (JSON): `{kinds: {"<apiVersion>/<Kind>": index}, types: [node]}`; a node is "x"
 * (anything), "s" string, "n" numeric, "b" boolean, "u" any scalar, an index into `types`,
 * `{m: {field: node}, e?: node, a?: 1}` (a map: its fields, the type of other keys, atomic) or
 * `{l: node, r: "a"|"s"|"m", k?: [keys], d?: {key: default}}` (a list: atomic, set, or map by keys).
 *
 * Usage: node tools/gen-typed-schemas.mjs [path/to/builtins/1.32]
 * (default: kubectl-validate in the Go module cache, `go env GOMODCACHE`).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const OUTPUT = join(REPO_ROOT, "src", "engine", "mutate", "typed", "typed-schema-data.ts");

function defaultInput() {
  const cache = execFileSync("go", ["env", "GOMODCACHE"], { encoding: "utf8" }).trim();
  const base = join(cache, "sigs.k8s.io");
  const dir = readdirSync(base).find((d) => d.startsWith("kubectl-validate@"));
  if (dir === undefined)
    throw new Error(`kubectl-validate is not in ${base}: go mod download sigs.k8s.io/kubectl-validate`);
  return join(base, dir, "pkg", "openapiclient", "builtins", "1.32");
}

function documents(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...documents(path));
    else if (name.endsWith(".json")) out.push(JSON.parse(readFileSync(path, "utf8")));
  }
  return out;
}

const REF = "#/components/schemas/";

/** The named type a property refers to ($ref, or allOf with one $ref), if any. */
function refName(s) {
  if (typeof s.$ref === "string") return s.$ref.slice(REF.length);
  if (Array.isArray(s.allOf) && s.allOf.length === 1 && typeof s.allOf[0].$ref === "string")
    return s.allOf[0].$ref.slice(REF.length);
  return undefined;
}

export function convertAll(docs) {
  const schemas = new Map();
  const kinds = {};
  for (const doc of docs) {
    for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) {
      if (!schemas.has(name)) schemas.set(name, s);
      for (const gvk of s["x-kubernetes-group-version-kind"] ?? []) {
        const apiVersion = gvk.group === "" ? gvk.version : `${gvk.group}/${gvk.version}`;
        kinds[`${apiVersion}/${gvk.kind}`] ??= name;
      }
    }
  }
  const index = new Map();
  const types = [];
  const named = (name, preserve) => {
    const key = preserve ? `${name}\u0000p` : name;
    if (index.has(key)) return index.get(key);
    const s = schemas.get(name);
    if (s === undefined) return "x";
    const at = types.length;
    index.set(key, at);
    types.push(null);
    types[at] = node(s, preserve);
    return at;
  };
  const ref = (s, preserve) => {
    const name = refName(s);
    if (name === undefined) return node(s, preserve);
    const target = named(name, preserve);
    // A property's own x-kubernetes-map-type overrides the type's.
    if (s["x-kubernetes-map-type"] === "atomic") return { t: target, a: 1 };
    if (s["x-kubernetes-map-type"] === "granular") return { t: target, a: 0 };
    return target;
  };
  const node = (s, inherited) => {
    const preserve = inherited || s["x-kubernetes-preserve-unknown-fields"] === true;
    const type = Array.isArray(s.type) ? s.type[0] : s.type;
    switch (type) {
      case undefined:
        return "x";
      case "object": {
        const fields = {};
        for (const [name, p] of Object.entries(s.properties ?? {})) fields[name] = ref(p, preserve);
        const out = { m: fields };
        const extra = s.additionalProperties;
        if (extra === undefined || extra === null) {
          if (preserve || Object.keys(fields).length === 0) out.e = "x";
        } else if (typeof extra === "object") out.e = ref(extra, preserve);
        else if (extra === true) out.e = "x";
        if (s["x-kubernetes-map-type"] === "atomic") out.a = 1;
        return out;
      }
      case "array": {
        const out = { l: s.items === undefined ? "x" : ref(s.items, preserve), r: "a" };
        const listType = s["x-kubernetes-list-type"];
        const strategy = s["x-kubernetes-patch-strategy"];
        if (listType === "set") out.r = "s";
        else if (listType === "map") {
          out.r = "m";
          out.k = s["x-kubernetes-list-map-keys"] ?? [];
        } else if (listType === undefined && (strategy === "merge" || strategy === "merge,retainKeys")) {
          const key = s["x-kubernetes-patch-merge-key"];
          if (typeof key === "string") {
            out.r = "m";
            out.k = [key];
          } else out.r = "s";
        }
        if (out.r === "m") {
          const item = s.items === undefined ? undefined : (schemas.get(refName(s.items) ?? "") ?? s.items);
          const defaults = {};
          for (const k of out.k) {
            const d = item?.properties?.[k]?.default;
            if (d !== undefined) defaults[k] = d;
          }
          if (Object.keys(defaults).length > 0) out.d = defaults;
        }
        return out;
      }
      case "integer":
      case "number":
        return "n";
      case "boolean":
        return "b";
      case "string":
        return s.format === undefined || s.format === "" || s.format === "byte" ? "s" : "u";
      default:
        return "u";
    }
  };
  const kindIndex = {};
  for (const [key, name] of Object.entries(kinds).sort(([a], [b]) => (a < b ? -1 : 1)))
    kindIndex[key] = named(name, false);
  return { kinds: kindIndex, types };
}

export function renderModule(data, source) {
  return [
    "// GENERATED FILE: do not edit; run node tools/gen-typed-schemas.mjs",
    "//",
    "// The structure of Kubernetes' built-in kinds as structured-merge-diff types (fields, list and map",
    "// relationships, scalar types), converted from the OpenAPI v3 documents Kyverno v1.19's CLI reads",
    `// for them: ${source}.`,
    "// The Kubernetes OpenAPI documents are Copyright The Kubernetes Authors, licensed under the Apache",
    "// License, Version 2.0 (http://www.apache.org/licenses/LICENSE-2.0).",
    "",
    '/** JSON: {kinds: {"<apiVersion>/<Kind>": type index}, types: [node]} (tools/gen-typed-schemas.mjs). */',
    `export const TYPED_SCHEMA_JSON = ${JSON.stringify(JSON.stringify(data))};`,
    "",
  ].join("\n");
}

function main() {
  const input = process.argv[2] ?? defaultInput();
  const data = convertAll(documents(input));
  const source = `kubectl-validate's pkg/openapiclient/builtins/${input.split("/").pop()} (sigs.k8s.io/kubectl-validate, as Kyverno v1.19 requires it)`;
  const text = renderModule(data, source);
  writeFileSync(OUTPUT, text);
  process.stdout.write(
    `wrote ${OUTPUT} (${text.length} bytes, ${data.types.length} types, ${Object.keys(data.kinds).length} kinds)\n`,
  );
}

main();
