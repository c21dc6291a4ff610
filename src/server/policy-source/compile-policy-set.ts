/**
 * Read and compile every policy document of a file list as one set. The set is all-or-nothing:
 * any YAML error, invalid policy or duplicate name makes it a list of problems instead, each
 * naming the file, the document (from 1), its line and the field path.
 *
 * Documents that are not kyverno.io ClusterPolicy/Policy (a kustomization.yaml, a ConfigMap) are
 * skipped with a warning; they do not block the set. The policies.kyverno.io kinds compile as in
 * cluster mode (cel-policy-compile.ts): ValidatingPolicy and NamespacedValidatingPolicy are served.
 * A MutatingPolicy or ImageValidatingPolicy (and Namespaced), which Bylaw would serve only as errors,
 * refuses the set, naming it; a rule nothing runs yet (generate, mutate-existing, unsupported fields:
 * unserved-parts.ts) is a warning naming the rule.
 * PolicyExceptions (kyverno.io, and policies.kyverno.io for ValidatingPolicy) load with the
 * set. A policy kind Bylaw does not run at all (GeneratingPolicy, DeletingPolicy,
 * ValidatingAdmissionPolicy, …) is a problem: the set is refused rather than served without it.
 */
import { createHash } from "node:crypto";
import {
  type AnyCompiledException,
  type CompiledPolicy,
  type Engine,
  isObject,
  type JsonValue,
  type PolicyKindDescriptor,
  type PolicyProblem,
  problem,
} from "../../engine/index.js";
import { loadPaths } from "../../platform/files/index.js";
import {
  compileGuarded,
  compiledPolicyWarnings,
  documentName,
  documentPlace,
  problemText,
} from "../../platform/policy-documents/index.js";
import type { LoadedDocument } from "../../platform/yaml/index.js";
import { statOrUndefined } from "./list-policy-files.js";
import type { SourceProblem } from "./types.js";
import { CEL_GROUP } from "../../kube/cel-policy-kinds.js";
import { compileCelPolicy, notEvaluatedMessage } from "./cel-policy-compile.js";
import { unservedKind, unservedRules } from "./unserved-parts.js";
import { exceptionRefusalProblem } from "./served-exception.js";

/**
 * A policy kind Bylaw does not run yet refuses the set: served, it would enforce nothing while the
 * operator believes it does. (`bylaw apply` gives each resource an error for it instead.)
 */
const NOT_SERVED = (kind: string): string =>
  `${kind} is not supported by Bylaw yet; the webhook cannot enforce it: remove it from the policy folder until Bylaw runs it`;

/**
 * A GeneratingPolicy (or Namespaced) in a policy folder: the generate controller that runs it works
 * only on policies read from the cluster (`--generate-controller-as`, or the background component),
 * so loaded here it would generate nothing while the operator believes it does.
 */
const NOT_IN_FOLDER = (kind: string, name: string): string =>
  `${kind} ${name} is not served from a policy folder: the generate controller that runs it works only on policies read from the cluster (serve --cluster with --generate-controller-as, or the background component); apply it to the cluster instead`;

/** A policies.kyverno.io kind the webhook serves (evaluated, or answering errors), by what it does in admission. */
function servedCelKind(doc: JsonValue, kind: PolicyKindDescriptor): boolean {
  return (
    kind.group === CEL_GROUP &&
    kind.admission !== "none" &&
    String((doc as { apiVersion?: unknown }).apiVersion).startsWith(`${CEL_GROUP}/`)
  );
}

/** `<apiVersion> <kind>` of a document, as the refusal names it. */
function kindName(doc: JsonValue): string {
  const d = doc as { apiVersion?: unknown; kind?: unknown };
  return `${typeof d.apiVersion === "string" ? d.apiVersion : ""} ${typeof d.kind === "string" ? d.kind : ""}`;
}

/** The API group of a document's apiVersion (`kyverno.io`, `policies.kyverno.io`). */
function groupOf(doc: JsonValue): string {
  const apiVersion = (doc as { apiVersion?: unknown }).apiVersion;
  return typeof apiVersion === "string" && apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
}

interface LoadedSet {
  /** Hash of every document read: an unchanged hash means an unchanged set. */
  readonly fingerprint: string;
  readonly documents: readonly LoadedDocument[];
}

type CompiledSet =
  | {
      readonly ok: true;
      readonly policies: readonly CompiledPolicy[];
      readonly exceptions: readonly AnyCompiledException[];
      readonly warnings: readonly string[];
    }
  | { readonly ok: false; readonly problems: readonly SourceProblem[]; readonly warnings: readonly string[] };

/** Read the files. A file that vanished between listing and reading counts as deleted. */
export async function readPolicyFiles(files: readonly string[]): Promise<LoadedSet> {
  const documents = await loadPaths(files);
  const vanished = new Set<string>();
  for (const d of documents) {
    if (d.error !== undefined && !vanished.has(d.source) && (await statOrUndefined(d.source)) === undefined)
      vanished.add(d.source);
  }
  const kept = vanished.size === 0 ? documents : documents.filter((d) => !vanished.has(d.source));
  const hash = createHash("sha256");
  for (const d of kept) hash.update(JSON.stringify([d.source, d.index, d.value ?? null, d.error ?? null])).update("\n");
  return { fingerprint: hash.digest("hex"), documents: kept };
}

/** `check` adds problems of a compiled policy that make the set invalid for this server (e.g. an unserved timeout). */
export function compilePolicySet(
  documents: readonly LoadedDocument[],
  engine: Engine,
  check?: (policy: CompiledPolicy) => readonly PolicyProblem[],
): CompiledSet {
  const policies: CompiledPolicy[] = [];
  const exceptions: AnyCompiledException[] = [];
  const problems: SourceProblem[] = [];
  const warnings: string[] = [];
  const seen = new Map<string, string>();
  for (const d of documents) {
    const at = { file: d.source, document: d.index + 1, ...(d.line !== undefined ? { line: d.line } : {}) };
    const where = documentPlace(d);
    if (d.error !== undefined) {
      problems.push({ ...at, problem: d.error });
      continue;
    }
    if (d.value === undefined) continue;
    const kind = engine.classify(d.value);
    if (kind.role === "exception") {
      const compiled = engine.compileException(d.value, where);
      const refusal = compiled.ok ? exceptionRefusalProblem(compiled.exception) : undefined;
      if (!compiled.ok || refusal !== undefined) {
        for (const p of compiled.ok
          ? [refusal as PolicyProblem]
          : compiled.problems.filter((x) => x.severity === "error"))
          problems.push({ ...at, policy: documentName(d.value), problem: p });
        continue;
      }
      for (const w of compiled.exception.warnings)
        warnings.push(`${where}: PolicyException ${compiled.exception.key}: ${w.path}: ${w.message}`);
      exceptions.push(compiled.exception);
      continue;
    }
    if (kind.role === "not-a-policy") {
      warnings.push(`${where}: skipped: ${kind.reason}`);
      continue;
    }
    if (kind.role === "policy" && kind.kind.language === "deleting") {
      // The cleanup controller's to run, which never runs on a policy folder: the policy webhook's words.
      const name = documentName(d.value);
      problems.push({ ...at, policy: name, problem: problem("kind", notEvaluatedMessage(kind.kind.kind, name)) });
      continue;
    }
    if (kind.role === "policy" && kind.kind.language === "generating") {
      // The generate controller's to run, which runs only on policies read from the cluster.
      const name = documentName(d.value);
      problems.push({ ...at, policy: name, problem: problem("kind", NOT_IN_FOLDER(kind.kind.kind, name)) });
      continue;
    }
    const cel = kind.role === "policy" && kind.kind.language !== "kyverno";
    if (kind.role !== "policy" || (cel && !servedCelKind(d.value, kind.kind))) {
      problems.push({ ...at, policy: documentName(d.value), problem: problem("kind", NOT_SERVED(kindName(d.value))) });
      continue;
    }
    let compiled: CompiledPolicy;
    if (cel && isObject(d.value)) {
      const cel = compileCelPolicy(d.value, engine);
      if (cel.policy === undefined) {
        for (const p of cel.problems) problems.push({ ...at, policy: documentName(d.value), problem: p });
        continue;
      }
      compiled = cel.policy;
    } else {
      const outcome = compileGuarded(engine, d.value);
      if (!outcome.ok) {
        const policy = documentName(d.value);
        for (const p of outcome.problems.filter((x) => x.severity === "error"))
          problems.push({ ...at, policy, problem: p });
        continue;
      }
      compiled = outcome.policy;
    }
    // One object per group, kind, namespace and name, as the API server keys them: a ClusterPolicy
    // and a ValidatingPolicy of the same name are two objects (a version of the same kind is not).
    const objectKind = compiled.origin.kind.kind;
    const key = `${groupOf(d.value)}/${objectKind}/${compiled.namespace}/${compiled.name}`;
    const first = seen.get(key);
    if (first !== undefined) {
      const what = `${objectKind} ${compiled.namespace === "" ? "" : `${compiled.namespace}/`}${compiled.name}`;
      problems.push({
        ...at,
        policy: compiled.name,
        problem: problem("metadata.name", `duplicate ${what}: already defined in ${first}`),
      });
      continue;
    }
    seen.set(key, where);
    const kindUnserved = unservedKind(compiled);
    const unfit = [...(kindUnserved !== undefined ? [kindUnserved] : []), ...(check?.(compiled) ?? [])];
    if (unfit.length > 0) {
      for (const p of unfit) problems.push({ ...at, policy: compiled.name, problem: p });
      continue;
    }
    warnings.push(...compiledPolicyWarnings(where, compiled));
    for (const w of unservedRules(compiled)) warnings.push(`${where}: policy ${compiled.name}: ${problemText(w)}`);
    policies.push(compiled);
  }
  return problems.length > 0 ? { ok: false, problems, warnings } : { ok: true, policies, exceptions, warnings };
}

/** One line per problem: `file: document N (line L): policy P: field: message`. */
export function describeProblem(p: SourceProblem): string {
  if (typeof p.problem === "string") return p.problem;
  const where = [
    p.file,
    p.document !== undefined ? `document ${p.document}${p.line !== undefined ? ` (line ${p.line})` : ""}` : undefined,
    p.policy !== undefined ? `policy ${p.policy}` : undefined,
  ];
  const field = p.problem.path === "" ? "" : `${p.problem.path}: `;
  return `${where.filter((x) => x !== undefined).join(": ")}: ${field}${p.problem.message}`;
}
