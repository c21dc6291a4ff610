#!/usr/bin/env node
/**
 * Generates src/engine/mutate/typed/typed-schema-data.ts: the structure of Kubernetes' built-in
 * kinds as structured-merge-diff types, from the OpenAPI v3 documents Kyverno v1.19's CLI reads
 * for them (kubectl-validate's hardcoded builtins for Kubernetes 1.32, `NewHardcodedBuiltins("1.32")`
 * in cmd/cli/kubectl-kyverno/processor). A MutatingPolicy's ApplyConfiguration is converted to a
 * typed object with them: an undeclared field or a scalar of the wrong type is an error, and an
 * atomic list or map may not be mutated.
 *
 * The conversion is src/engine/mutate/typed/from-openapi.ts (the one an engine serving a cluster
 * uses for the API server's /openapi/v3), read from its build: run `npx tsc -p tsconfig.build.json` first.
 *
 * Encoding (JSON): `{kinds: {"<apiVersion>/<Kind>": index}, types: [node]}`; a node is "x"
 * (anything), "s" string, "n" numeric, "b" boolean, "u" any scalar, an index into `types`,
 * `{m: {field: node}, e?: node, a?: 1}` (a map: its fields, the type of other keys, atomic) or
 * `{l: node, r: "a"|"s"|"m", k?: [keys], d?: {key: default}}` (a list: atomic, set, or map by keys).
 *
 * Usage: npx tsc -p tsconfig.build.json && node tools/gen-typed-schemas.mjs [path/to/builtins/1.32]
 * (default: kubectl-validate in the Go module cache, `go env GOMODCACHE`).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
// The one OpenAPI v3 → structured-merge-diff conversion, as built by `npx tsc -p tsconfig.build.json`.
import { typedSchemaFromOpenApi } from "../dist/src/engine/mutate/typed/from-openapi.js";

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
  const data = typedSchemaFromOpenApi(documents(input));
  const source = `kubectl-validate's pkg/openapiclient/builtins/${input.split("/").pop()} (sigs.k8s.io/kubectl-validate, as Kyverno v1.19 requires it)`;
  const text = renderModule(data, source);
  writeFileSync(OUTPUT, text);
  process.stdout.write(
    `wrote ${OUTPUT} (${text.length} bytes, ${data.types.length} types, ${Object.keys(data.kinds).length} kinds)\n`,
  );
}

main();
