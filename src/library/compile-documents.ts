/**
 * Compile loaded policy documents (from files, text or objects). Every document of a policy path
 * must be something Bylaw can account for; anything else is an error (the CLI exits 2, `createBylaw` answers not ok) naming
 * the file, the document (from 1) and the field path, and the other documents still load:
 * - a YAML syntax error, an invalid policy (unknown fields, bad values, deprecated fields Kyverno
 *   rejects), or a document that is not a policy (a Pod, a kustomization.yaml) is an error;
 * - a PolicyException (kyverno.io, or policies.kyverno.io for the CEL kinds) is honoured, as if
 *   given with `-e` (Kyverno's CLI loader accepts exceptions in policy paths too);
 * - a Validating/MutatingAdmissionPolicyBinding binds the admission policy of its kind it names, wherever among
 *   the documents either is: bindings are read first (an invalid one is an error naming its own file
 *   and document) and each policy compiles with them; a binding that names no loaded policy is a
 *   warning (it binds nothing here);
 * - a policy kind Bylaw does not run yet (MutatingPolicy, …) compiles to a policy whose results are
 *   `error` for every resource (engine policy/unsupported-kind.ts).
 */
import {
  compileAdmissionBinding,
  type AnyCompiledException,
  type CompiledPolicy,
  type Engine,
  isAdmissionBindingDocument,
  isObject,
  type JsonObject,
  textOf,
} from "../engine/index.js";
import {
  compiledPolicyWarnings,
  documentName,
  documentPlace,
  problemText,
} from "../platform/policy-documents/index.js";
import type { LoadedDocument } from "../platform/yaml/index.js";
import { compileExceptionDocuments } from "./compile-exceptions.js";

export interface LoadedPolicies {
  readonly compiled: CompiledPolicy[];
  /** PolicyExceptions found among the policies. */
  readonly exceptions: AnyCompiledException[];
  /** policy name → why it is invalid */
  readonly invalid: Map<string, string>;
  /** What makes the run fail (the CLI exits 2): YAML errors, invalid policies, non-policy documents; each names file, document and field. */
  readonly errors: string[];
  /** What the user should know but does not fail the run: deprecations, kinds not supported yet. */
  readonly warnings: string[];
  /** Missing paths: nothing could be read. */
  readonly fatal: string[];
}

export function compileDocuments(docs: readonly LoadedDocument[], engine: Engine): LoadedPolicies {
  const out: LoadedPolicies = { compiled: [], exceptions: [], invalid: new Map(), errors: [], warnings: [], fatal: [] };
  const items = docs.flatMap(listItems);
  const bindings = admissionBindings(items, out, engine);
  for (const item of items) {
    const d = item.doc;
    const where = whereOf(item);
    if (isAdmissionBindingDocument(d.value ?? null)) continue;
    if (d.error !== undefined) {
      if (/no such file|not found|ENOENT/i.test(d.error)) out.fatal.push(d.error);
      else out.errors.push(d.error);
      continue;
    }
    if (d.value === undefined) continue;
    const kind = engine.classify(d.value);
    if (kind.role === "exception") {
      const loaded = compileExceptionDocuments([d], engine);
      out.exceptions.push(...loaded.exceptions);
      out.errors.push(...loaded.errors);
      out.warnings.push(...loaded.warnings);
      continue;
    }
    if (kind.role === "not-a-policy") {
      out.errors.push(
        `${where}: not a policy: ${kind.reason}; a policy path may hold only policies (and PolicyExceptions): move it out`,
      );
      continue;
    }
    const result = engine.compile(d.value, { bindings: bindings.map((b) => b.doc) });
    if (!result.ok) {
      const name = documentName(d.value);
      const text = result.problems
        .filter((p) => p.severity === "error")
        .map(problemText)
        .join("; ");
      out.invalid.set(name, text);
      out.errors.push(`${where}: invalid policy ${name}: ${text}`);
      continue;
    }
    if (result.policy.language === "unsupported") {
      out.warnings.push(
        `${where}: ${result.policy.name}: ${result.policy.unsupportedKind} policies are not supported by Bylaw yet; every resource gets an error result for it`,
      );
    }
    out.warnings.push(...compiledPolicyWarnings(where, result.policy));
    out.compiled.push(result.policy);
  }
  return out;
}

function whereOf(item: { doc: LoadedDocument; of: string }): string {
  return `${documentPlace(item.doc)}${item.of}`;
}

/**
 * The valid Validating- and MutatingAdmissionPolicyBindings among the documents. An invalid one is an error at its
 * own place; one that names no policy of its kind among the documents is a warning.
 */
function admissionBindings(
  items: readonly { doc: LoadedDocument; of: string }[],
  out: LoadedPolicies,
  engine: Engine,
): { doc: JsonObject; policyName: string }[] {
  const policies = new Set(
    items.flatMap((i) => {
      const c = engine.classify(i.doc.value);
      const bound = c.role === "policy" && c.kind.boundBy !== undefined;
      return bound && i.doc.value !== undefined ? [`${c.kind.kind}/${documentName(i.doc.value)}`] : [];
    }),
  );
  const found: { doc: JsonObject; policyName: string }[] = [];
  for (const item of items) {
    const v = item.doc.value;
    if (v === undefined || !isAdmissionBindingDocument(v)) continue;
    const compiled = compileAdmissionBinding(v);
    const kind = compiled.ok ? compiled.value.of : textOf(v["kind"]).replace(/Binding$/, "");
    const bindingKind = `${kind}Binding`;
    if (!compiled.ok) {
      const text = compiled.problems.map((p) => p.message).join("; ");
      // The policy it names cannot be evaluated as written: its rows are invalid too.
      const spec = isObject(v["spec"]) ? v["spec"] : {};
      if (typeof spec["policyName"] === "string")
        out.invalid.set(spec["policyName"], `its ${bindingKind} ${documentName(v)} is invalid: ${text}`);
      out.errors.push(`${whereOf(item)}: invalid ${bindingKind} ${documentName(v)}: ${text}`);
      continue;
    }
    const policyName = compiled.value.policyName;
    if (policyName === "")
      out.warnings.push(`${whereOf(item)}: ${bindingKind} ${documentName(v)} has no spec.policyName; it binds nothing`);
    else if (!policies.has(`${kind}/${policyName}`))
      out.warnings.push(
        `${whereOf(item)}: ${bindingKind} ${documentName(v)} names ${kind} ${policyName}, which is not among the policies; it binds nothing here`,
      );
    found.push({ doc: v, policyName });
  }
  return found;
}

/** A `kind: List` (as `kubectl get -o yaml` prints, and Kyverno's loader reads) stands for its items. */
function listItems(d: LoadedDocument): { doc: LoadedDocument; of: string }[] {
  const v = d.value;
  if (!isObject(v) || v["kind"] !== "List" || !Array.isArray(v["items"])) return [{ doc: d, of: "" }];
  return v["items"].map((value, i) => ({ doc: { ...d, value }, of: `, List item ${i + 1}` }));
}
