/**
 * The policy documents of one or more sets. Entries that are folders are read recursively; only
 * Kyverno policy documents are kept, so a set may point at folders that also hold test suites and
 * sample resources. A file listed by several sets (pss-restricted builds on pss-baseline) loads once.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { classify, isObject } from "../../engine/index.js";
import { listDocumentFiles, loadPaths } from "../../platform/files/index.js";
import type { LoadedDocument } from "../../platform/yaml/index.js";
import { policyInfo } from "../output/policy-info.js";
import type { PolicyInfo } from "../output/types.js";
import type { PolicySet } from "./types.js";

export async function loadSetDocuments(sets: readonly PolicySet[]): Promise<LoadedDocument[]> {
  const files: string[] = [];
  const setOf = new Map<string, string>();
  const seen = new Set<string>();
  for (const set of sets) {
    for (const entry of set.entries) {
      for (const file of await expand(entry)) {
        const key = resolve(file);
        if (seen.has(key)) continue;
        seen.add(key);
        files.push(file);
        setOf.set(file, set.name);
      }
    }
  }
  const docs = await loadPaths(files);
  return docs
    .filter((d) => d.error !== undefined || (d.value !== undefined && classify(d.value).role !== "not-a-policy"))
    .map((d) => (d.error === undefined ? d : { ...d, error: `policy set ${setOf.get(d.source) ?? "?"}: ${d.error}` }));
}

async function expand(entry: string): Promise<string[]> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(entry)).isDirectory();
  } catch {
    return [entry]; // loadPaths reports the missing path
  }
  if (!isDirectory) return [entry];
  const listed = await listDocumentFiles(entry);
  return listed.ok ? listed.value : [entry]; // loadPaths reports the unreadable folder
}

/** One policy of a set, as `bylaw policy-sets NAME` lists it. */
export interface SetPolicy extends PolicyInfo {
  readonly name: string;
  readonly kind: string;
  /** The failure action its validate rules use: Audit, Enforce, or "Audit/Enforce" when they differ. */
  readonly action: string;
  readonly source: string;
}

export function describeSetPolicies(docs: readonly LoadedDocument[]): SetPolicy[] {
  const out: SetPolicy[] = [];
  for (const d of docs) {
    if (!isObject(d.value)) continue;
    const metadata = d.value["metadata"];
    const name = isObject(metadata) && typeof metadata["name"] === "string" ? metadata["name"] : "(unnamed)";
    const kind = typeof d.value["kind"] === "string" ? d.value["kind"] : "";
    out.push({ name, kind, action: actionOf(d.value["spec"]), source: d.source, ...policyInfo(d.value) });
  }
  return out;
}

function actionOf(spec: unknown): string {
  if (!isObject(spec)) return "Audit";
  const specAction = normalise(spec["validationFailureAction"]) ?? "Audit";
  const actions = new Set<string>();
  for (const rule of Array.isArray(spec["rules"]) ? spec["rules"] : []) {
    if (!isObject(rule) || !isObject(rule["validate"])) continue;
    actions.add(normalise(rule["validate"]["failureAction"]) ?? specAction);
  }
  if (actions.size === 0) return specAction;
  return [...actions].sort().join("/");
}

function normalise(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  return v.toLowerCase() === "enforce" ? "Enforce" : v.toLowerCase() === "audit" ? "Audit" : undefined;
}
