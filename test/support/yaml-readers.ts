/**
 * The readers YAML that Bylaw writes must satisfy, each giving plain JSON values per document:
 * - `readYaml12`: the `yaml` package, YAML 1.2 core schema;
 * - `readYaml11`: the `yaml` package in YAML 1.1 mode (yes/on/y booleans, 0755 octal, 1:20
 *   sexagesimal, timestamps, `<<` merge). A plain timestamp comes back as a Date, whose JSON is not
 *   the text written: so a timestamp-like string the writer left plain fails the comparison;
 * - `readKubernetes`: Bylaw's own loader, which reads as sigs.k8s.io/yaml over go-yaml v2 does;
 * - `readWithKubectl`: the real kubectl binary (see kubectl-reader.ts).
 */
import { parseAllDocuments } from "yaml";
import type { JsonValue } from "../../src/engine/index.js";
import { parseDocuments } from "../../src/platform/yaml/index.js";

export type Reader = (text: string) => JsonValue[];

function viaYamlPackage(text: string, version: "1.1" | "1.2"): JsonValue[] {
  const docs = parseAllDocuments(text, { version, merge: version === "1.1", uniqueKeys: true, prettyErrors: false });
  if (!Array.isArray(docs)) return [];
  return docs.map((doc) => {
    if (doc.errors.length > 0)
      throw new Error(`YAML ${version} reader: ${doc.errors.map((e) => e.message).join("; ")}`);
    return doc.toJS({ maxAliasCount: -1 }) as JsonValue;
  });
}

export const readYaml12: Reader = (text) => viaYamlPackage(text, "1.2");
export const readYaml11: Reader = (text) => viaYamlPackage(text, "1.1");

export const readKubernetes: Reader = (text) =>
  parseDocuments(text, "<written>").map((d) => {
    if (d.error !== undefined) throw new Error(`Kubernetes-rules reader: ${d.error}`);
    return d.value ?? null;
  });

/** JSON text with object keys sorted, so two values compare equal exactly when they are the same JSON. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
    return sorted;
  });
}
