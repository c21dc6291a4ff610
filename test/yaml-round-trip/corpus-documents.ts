/**
 * The documents of the conformance corpus the YAML round trip writes: every document of every file
 * a kyverno-test.yaml names (policies, resources, targetResources, exceptions, variables, userinfo,
 * and each result's patchedResources, generatedResource(s), cloneSourceResource), read with Bylaw's
 * loader; and every resource the suites produce when run (each mutate policy's patched resource,
 * mutate-existing targets, generated resources).
 */
import { dirname, join, relative, resolve } from "node:path";
import type { Engine, JsonObject, JsonValue, PolicyResponse } from "../../src/engine/index.js";
import { offlineEngine } from "../../src/cli/offline/offline-engine.js";
import { runSuite } from "../../src/cli/test-suite/run-suite.js";
import { parseTestFile, type TestSpec } from "../../src/cli/test-suite/test-file.js";
import { loadPaths } from "../../src/platform/files/index.js";
import { readManifest } from "../conformance/manifest.js";

export interface SourcedDocument {
  /** Where it came from: `file#document` for corpus files, `suite: produced by policy/rule` otherwise. */
  readonly where: string;
  readonly value: JsonValue;
}

export interface CorpusDocuments {
  readonly files: SourcedDocument[];
  readonly produced: SourcedDocument[];
  readonly suites: number;
  readonly unreadable: string[];
}

export async function corpusDocuments(corpus: string): Promise<CorpusDocuments> {
  const manifest = await readManifest(join(corpus, "MANIFEST.tsv"));
  const seen = new Set<string>();
  const files: SourcedDocument[] = [];
  const produced: SourcedDocument[] = [];
  const unreadable: string[] = [];
  for (const entry of manifest) {
    const testFile = join(corpus, entry.suiteDir, ".kyverno-test", "kyverno-test.yaml");
    const [doc] = await loadPaths([testFile]);
    const parsed = doc?.value !== undefined ? parseTestFile(doc.value) : undefined;
    if (parsed === undefined || !parsed.ok) {
      unreadable.push(
        `${relative(corpus, testFile)}: ${parsed === undefined ? (doc?.error ?? "empty") : parsed.errors.join("; ")}`,
      );
      continue;
    }
    for (const path of namedFiles(parsed.spec).map((f) => resolve(dirname(testFile), f))) {
      if (seen.has(path)) continue;
      seen.add(path);
      for (const d of await loadPaths([path])) {
        if (d.error !== undefined) unreadable.push(d.error);
        else if (d.value !== undefined)
          files.push({ where: `${relative(corpus, path)}#${d.index + 1}`, value: d.value });
      }
    }
    const collect = (response: PolicyResponse): PolicyResponse => {
      const by = `${entry.suiteDir}: produced by ${response.policy.name}`;
      if (response.patchedResource !== undefined) produced.push({ where: by, value: response.patchedResource });
      for (const rule of response.rules) {
        if (rule.patchedTarget !== undefined) produced.push({ where: `${by}/${rule.rule}`, value: rule.patchedTarget });
        for (const g of rule.generated ?? []) produced.push({ where: `${by}/${rule.rule}`, value: g.toApply });
      }
      return response;
    };
    await runSuite(testFile, (spec) => recording(offlineEngine(spec), collect), entry.suiteDir);
  }
  return { files, produced, suites: manifest.length, unreadable };
}

function namedFiles(spec: TestSpec): string[] {
  const out = [...spec.policies, ...spec.resources, ...spec.targetResources, ...spec.exceptions];
  for (const f of [spec.variables, spec.userinfo]) if (f !== undefined) out.push(f);
  for (const r of spec.results) {
    for (const f of [r.patchedResources, r.generatedResource, r.cloneSourceResource, ...(r.generatedResources ?? [])])
      if (f !== undefined) out.push(f);
  }
  return out;
}

/** The engine, with every mutate and generate response handed to `seen` as well. */
function recording(engine: Engine, seen: (r: PolicyResponse) => PolicyResponse): Engine {
  return {
    ...engine,
    mutate: (policy, request, existing) => seen(engine.mutate(policy, request, existing)),
    generate: (policy, request, existing) => seen(engine.generate(policy, request, existing)),
  };
}

export function isKubernetesObject(v: JsonValue): v is JsonObject {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const meta = v["metadata"];
  return (
    typeof v["apiVersion"] === "string" &&
    typeof v["kind"] === "string" &&
    !v["kind"].endsWith("List") &&
    typeof meta === "object" &&
    meta !== null &&
    !Array.isArray(meta) &&
    typeof meta["name"] === "string" &&
    meta["name"] !== ""
  );
}
