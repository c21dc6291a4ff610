/**
 * Load policy documents from files/directories and compile them. A bad document is reported with its
 * file, document index and field path; the other documents still load.
 */
import type { Engine } from "../engine/engine.js";
import { policyKindOf } from "../engine/policy/parse-policy.js";
import type { CompiledPolicy } from "../engine/policy/compiled-policy.js";
import { loadPaths } from "../platform/files/index.js";
import type { LoadedDocument } from "../platform/yaml/index.js";

export interface LoadedPolicies {
  readonly compiled: CompiledPolicy[];
  /** policy name → why it is invalid */
  readonly invalid: Map<string, string>;
  /** Problems that name a file/document: YAML errors, invalid policies, unsupported kinds. */
  readonly warnings: string[];
  /** Missing paths: nothing could be read. */
  readonly fatal: string[];
}

export async function loadPolicies(paths: readonly string[], engine: Engine, stdin?: () => Promise<string>): Promise<LoadedPolicies> {
  const docs = await loadPaths([...paths], stdin ? { stdin } : {});
  return compileDocuments(docs, engine);
}

export function compileDocuments(docs: readonly LoadedDocument[], engine: Engine): LoadedPolicies {
  const out: LoadedPolicies = { compiled: [], invalid: new Map(), warnings: [], fatal: [] };
  for (const d of docs) {
    const where = `${d.source}: document ${d.index + 1}${d.line !== undefined ? ` (line ${d.line})` : ""}`;
    if (d.error !== undefined) {
      if (/no such file|not found|ENOENT/i.test(d.error)) out.fatal.push(d.error);
      else out.warnings.push(d.error);
      continue;
    }
    if (d.value === undefined) continue;
    const kind = policyKindOf(d.value);
    if (kind.kind === "not-a-policy") {
      out.warnings.push(`${where}: skipped: ${kind.reason}`);
      continue;
    }
    if (kind.kind === "other-policy") {
      const name = nameOf(d.value);
      out.invalid.set(name, `${kind.name} policies are not supported by Bylaw yet`);
      out.warnings.push(`${where}: skipped ${name}: ${kind.name} is not supported yet`);
      continue;
    }
    const result = engine.compile(d.value);
    if (!result.ok) {
      const name = nameOf(d.value);
      const text = result.problems.filter((p) => p.severity === "error").map((p) => `${p.path}: ${p.message}`).join("; ");
      out.invalid.set(name, text);
      out.warnings.push(`${where}: invalid policy ${name}: ${text}`);
      continue;
    }
    for (const w of result.policy.warnings) {
      if (w.severity === "warning") out.warnings.push(`${where}: ${result.policy.name}: ${w.path}: ${w.message}`);
    }
    out.compiled.push(result.policy);
  }
  return out;
}

function nameOf(doc: unknown): string {
  const md = (doc as { metadata?: { name?: unknown } }).metadata;
  return typeof md?.name === "string" ? md.name : "(unnamed)";
}
