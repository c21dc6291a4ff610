/**
 * The resource files a test result names (`patchedResources`, `generatedResource`,
 * `cloneSourceResource`), and Kyverno's comparison with what the engine produced: find the document
 * with the same kind, name and namespace (an unset namespace counts as `default`), then compare both
 * "tidied" — nulls, empty maps and empty lists removed.
 */
import { resolve } from "node:path";
import {
  isObject,
  jsonEqual,
  type JsonObject,
  type JsonValue,
  type Resource,
  resourceKind,
  resourceName,
  resourceNamespace,
} from "../../engine/index.js";
import { loadPaths } from "../../platform/files/index.js";
import type { TestSpec } from "./test-file.js";

export type ResourceFile = { readonly docs: readonly JsonObject[] } | { readonly error: string };

export async function loadExpectedResources(dir: string, spec: TestSpec): Promise<Map<string, ResourceFile>> {
  const files = new Set<string>();
  for (const r of spec.results) {
    for (const f of [r.patchedResources, r.generatedResource, r.cloneSourceResource, ...(r.generatedResources ?? [])])
      if (f !== undefined) files.add(f);
  }
  const out = new Map<string, ResourceFile>();
  for (const f of files) {
    const docs = await loadPaths([resolve(dir, f)]);
    const bad = docs.find((d) => d.error !== undefined);
    out.set(f, bad !== undefined ? { error: bad.error ?? "" } : { docs: docs.map((d) => d.value).filter(isObject) });
  }
  return out;
}

/** The document describing the same object as `actual`, if the file has one. */
export function findSameObject(docs: readonly JsonObject[], actual: Resource): JsonObject | undefined {
  const ns = (r: Resource): string => resourceNamespace(r) || "default";
  return docs.find(
    (d) => resourceKind(d) === resourceKind(actual) && resourceName(d) === resourceName(actual) && ns(d) === ns(actual),
  );
}

/** Kyverno's comparison: both sides tidied, the namespace defaulted, then compared structurally. */
export function sameContent(actual: Resource, expected: JsonObject): boolean {
  return jsonEqual(tidy(withNamespace(actual)) ?? null, tidy(withNamespace(expected)) ?? null);
}

function withNamespace(r: JsonObject): JsonObject {
  if (resourceNamespace(r) !== "") return r;
  const metadata = isObject(r["metadata"]) ? r["metadata"] : {};
  return { ...r, metadata: { ...metadata, namespace: "default" } };
}

/** Drops nulls, empty maps and empty lists, recursively; undefined when nothing is left. */
export function tidy(v: JsonValue): JsonValue | undefined {
  if (v === null) return undefined;
  if (Array.isArray(v)) {
    const out = v.map(tidy).filter((x): x is JsonValue => x !== undefined);
    return out.length === 0 ? undefined : out;
  }
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      const t = tidy(x);
      if (t !== undefined) out[k] = t;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v;
}

/** A short description of how two resources differ: the first differing paths. */
export function describeDiff(
  actual: JsonValue | undefined,
  expected: JsonValue | undefined,
  path = "",
  out: string[] = [],
): string[] {
  if (out.length >= 5 || jsonEqual(actual, expected)) return out;
  if (isObject(actual) && isObject(expected)) {
    for (const k of new Set([...Object.keys(expected), ...Object.keys(actual)]))
      describeDiff(actual[k], expected[k], `${path}.${k}`, out);
    return out;
  }
  if (Array.isArray(actual) && Array.isArray(expected) && actual.length === expected.length) {
    actual.forEach((a, i) => describeDiff(a, expected[i], `${path}[${i}]`, out));
    return out;
  }
  out.push(`${path || "."}: want ${JSON.stringify(expected) ?? "nothing"}, got ${JSON.stringify(actual) ?? "nothing"}`);
  return out;
}
