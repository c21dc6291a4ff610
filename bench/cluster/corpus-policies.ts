/**
 * The corpus policy sets of the cluster bench (`../shared/conformance/kyverno-policies`), written as
 * one file per policy for `kubectl apply -f DIR`, each policy as its suite wrote it (its own
 * actions, failurePolicy and match):
 * - `cluster-policies`: every kyverno.io ClusterPolicy (v1 and v2beta1);
 * - `validating-policies`: every policies.kyverno.io ValidatingPolicy.
 * Left out, with the reason printed: policies whose rules need the outside network, which this
 * machine does not reach (an `imageRegistry` context entry, `verifyImages`, an `apiCall.service`
 * or `globalReference` entry, CEL `image.GetMetadata` or `http.*`): Bylaw would answer them with a
 * rule error, and under Fail that denies every create at its step, so nothing after it would be
 * measured. The corpus's other kinds (MutatingPolicy, GeneratingPolicy) are counted as not loaded,
 * with the reason. Variants that share a name (best-practices/require-labels and
 * best-practices-cel/require-labels) are renamed with their suite's category, so all are loaded.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";

export type CorpusFamily = "cluster-policies" | "validating-policies";

type Doc = { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown; namespace?: unknown } };

export interface CorpusSet {
  /** Policies written to the folder, by kind. */
  readonly written: ReadonlyMap<string, number>;
  /** Policies of the family left out, by reason, with their names. */
  readonly leftOut: ReadonlyMap<string, readonly string[]>;
  /** Policy documents of other kinds in the corpus, by kind (never loaded by this family). */
  readonly otherKinds: ReadonlyMap<string, number>;
  /**
   * The RuntimeClasses the written policies' mutations set (`runtimeClassName: prodclass`): a cluster
   * running those policies has them, and the API server's RuntimeClass admission refuses a Pod
   * naming one that does not exist, after the mutating webhook and before the validating one.
   */
  readonly runtimeClasses: readonly string[];
}

const FAMILY_KINDS: Record<CorpusFamily, (d: Doc) => boolean> = {
  "cluster-policies": (d) =>
    typeof d.apiVersion === "string" && /^kyverno\.io\/v[0-9a-z]+$/.test(d.apiVersion) && d.kind === "ClusterPolicy",
  "validating-policies": (d) =>
    typeof d.apiVersion === "string" &&
    d.apiVersion.startsWith("policies.kyverno.io/") &&
    d.kind === "ValidatingPolicy",
};

const isPolicyKind = (d: Doc): boolean =>
  typeof d.apiVersion === "string" &&
  /^(kyverno\.io|policies\.kyverno\.io)\//.test(d.apiVersion) &&
  typeof d.kind === "string" &&
  /Policy$/.test(d.kind) &&
  d.kind !== "PolicyException";

/** Walks every value of a document; `visit` returns a reason to stop at the first one. */
function firstReason(value: unknown, visit: (key: string, v: unknown) => string | undefined): string | undefined {
  if (Array.isArray(value)) {
    for (const v of value) {
      const r = firstReason(v, visit);
      if (r !== undefined) return r;
    }
    return undefined;
  }
  if (value === null || typeof value !== "object") return undefined;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const r = visit(k, v) ?? firstReason(v, visit);
    if (r !== undefined) return r;
  }
  return undefined;
}

/**
 * Why a policy's rules need the outside network, or undefined when they need only the API server.
 * Read from the policy's fields: context entries and rule types for kyverno.io, the CEL libraries
 * that fetch (image.GetMetadata, http.Get/Post) in any expression for policies.kyverno.io.
 */
export function outsideNetworkReason(doc: unknown): string | undefined {
  return firstReason(doc, (key, v) => {
    if (key === "imageRegistry" && v !== null && typeof v === "object")
      return "an imageRegistry context entry reads a public registry";
    if (key === "verifyImages" && Array.isArray(v) && v.length > 0)
      return "verifyImages reads signatures from a public registry";
    if (key === "globalReference" && v !== null && typeof v === "object")
      return "a globalReference entry needs a GlobalContextEntry this cluster lacks";
    if (key === "apiCall" && v !== null && typeof v === "object" && "service" in v)
      return "apiCall.service calls a service outside the API server";
    if (typeof v === "string" && /\bimage\.GetMetadata\s*\(/.test(v))
      return "CEL image.GetMetadata reads a public registry";
    if (typeof v === "string" && /\bhttp\.(Get|Post)\s*\(/.test(v)) return "CEL http.Get/Post calls an outside service";
    return undefined;
  });
}

/** Literal `runtimeClassName` values inside a policy's `mutate` blocks (not `{{ }}` variables). */
export function mutatedRuntimeClasses(doc: unknown): string[] {
  const out = new Set<string>();
  const walk = (value: unknown, inMutate: boolean): void => {
    if (Array.isArray(value)) for (const v of value) walk(v, inMutate);
    else if (value !== null && typeof value === "object") {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (inMutate && k === "runtimeClassName" && typeof v === "string" && !v.includes("{{")) out.add(v);
        walk(v, inMutate || k === "mutate");
      }
    }
  };
  walk(doc, false);
  return [...out];
}

/** The documents of a YAML file that are objects; none when it does not parse. */
export function docsOf<T extends object = Doc>(file: string): T[] {
  try {
    return parseAllDocuments(readFileSync(file, "utf8"))
      .map((d) => d.toJSON() as T)
      .filter((d) => d !== null && typeof d === "object");
  } catch {
    return [];
  }
}

function suitesOf(corpus: string): string[] {
  return readFileSync(join(corpus, "MANIFEST.tsv"), "utf8")
    .split("\n")
    .slice(1)
    .map((l) => l.split("\t")[0] ?? "")
    .filter((s) => s !== "");
}

const bump = (m: Map<string, number>, k: string): void => {
  m.set(k, (m.get(k) ?? 0) + 1);
};

/** Writes the family's policies of every corpus suite to `dir`, one file each; returns the counts. */
export function writeCorpusPolicies(corpus: string, dir: string, family: CorpusFamily): CorpusSet {
  mkdirSync(dir, { recursive: true });
  const written = new Map<string, number>();
  const leftOut = new Map<string, string[]>();
  const otherKinds = new Map<string, number>();
  const seen = new Set<string>();
  const runtimeClasses = new Set<string>();
  for (const suite of suitesOf(corpus)) {
    const root = join(corpus, suite);
    if (!existsSync(root)) continue;
    for (const file of readdirSync(root)
      .filter((f) => f.endsWith(".yaml") || f.endsWith(".yml"))
      .sort()) {
      for (const doc of docsOf(join(root, file)).filter(isPolicyKind)) {
        const kind = String(doc.kind);
        if (!FAMILY_KINDS[family](doc) || typeof doc.metadata?.name !== "string") {
          if (!Object.values(FAMILY_KINDS).some((k) => k(doc))) bump(otherKinds, kind);
          continue;
        }
        let name = doc.metadata.name;
        if (seen.has(name)) name = `${name}-${suite.split("/")[0] ?? "dup"}`.slice(0, 250);
        if (seen.has(name)) {
          leftOut.set("a third variant of one name in one category", [
            ...(leftOut.get("a third variant of one name in one category") ?? []),
            name,
          ]);
          continue;
        }
        seen.add(name);
        const reason = outsideNetworkReason(doc);
        if (reason !== undefined) {
          leftOut.set(reason, [...(leftOut.get(reason) ?? []), name]);
          continue;
        }
        doc.metadata.name = name;
        delete doc.metadata.namespace;
        writeFileSync(join(dir, `${kind}-${name}.yaml`), stringify(doc));
        bump(written, kind);
        for (const rc of mutatedRuntimeClasses(doc)) runtimeClasses.add(rc);
      }
    }
  }
  return { written, leftOut, otherKinds, runtimeClasses: [...runtimeClasses].sort() };
}

/** Why the corpus's other policy kinds are not part of the bench's sets. */
const NOT_LOADED: Record<string, string> = {
  MutatingPolicy:
    "served in admission, but not part of these sets: the rows compare with the issue's validate figures (bench/mutating-policy-webhook.ts measures MutatingPolicies)",
  GeneratingPolicy: "generates objects, decides no admission",
};

/** The set's counts as lines for the bench's output. */
export function describeCorpusSet(family: CorpusFamily, set: CorpusSet): string[] {
  const total = [...set.written.values()].reduce((a, b) => a + b, 0);
  const out = [`  corpus ${family}: ${total} written (${[...set.written].map(([k, n]) => `${n} ${k}`).join(", ")})`];
  for (const [reason, names] of set.leftOut) out.push(`    left out ${names.length}: ${reason}: ${names.join(", ")}`);
  if (set.runtimeClasses.length > 0)
    out.push(`    RuntimeClasses the policies' mutations set, created first: ${set.runtimeClasses.join(", ")}`);
  for (const [kind, n] of set.otherKinds)
    out.push(`    not loaded ${n} ${kind}: ${NOT_LOADED[kind] ?? "not an admission-validating kind"}`);
  return out;
}
