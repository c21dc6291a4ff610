/**
 * A test's `exceptions:` files (paths relative to the test file): every kyverno.io PolicyException
 * document in them, compiled. A file that cannot be read or an invalid exception fails the suite
 * with the file, document and field; other documents are skipped with a warning.
 */
import { resolve } from "node:path";
import { compileException, isPolicyExceptionDocument, type CompiledException } from "../../engine/exceptions/index.js";
import { loadPaths } from "../../platform/files/index.js";

export interface SuiteExceptions {
  readonly exceptions: CompiledException[];
  readonly errors: string[];
  readonly warnings: string[];
}

export async function loadSuiteExceptions(dir: string, files: readonly string[]): Promise<SuiteExceptions> {
  const out: SuiteExceptions = { exceptions: [], errors: [], warnings: [] };
  if (files.length === 0) return out;
  for (const d of await loadPaths(files.map((f) => resolve(dir, f)))) {
    const where = `${d.source}: document ${d.index + 1}${d.line !== undefined ? ` (line ${d.line})` : ""}`;
    if (d.error !== undefined) {
      out.errors.push(d.error);
      continue;
    }
    if (d.value === undefined) continue;
    const kind = isPolicyExceptionDocument(d.value);
    if (kind === "other") {
      out.warnings.push(`${where}: skipped: not a PolicyException`);
      continue;
    }
    if (kind === "cel") {
      out.warnings.push(`${where}: skipped: policies.kyverno.io PolicyExceptions (for CEL policies) are not supported by Bylaw yet`);
      continue;
    }
    const compiled = compileException(d.value, where);
    if (!compiled.ok) {
      const text = compiled.problems
        .filter((p) => p.severity === "error")
        .map((p) => (p.path === "" ? p.message : `${p.path}: ${p.message}`))
        .join("; ");
      out.errors.push(`${where}: invalid PolicyException: ${text}`);
      continue;
    }
    const { exception } = compiled;
    for (const w of exception.warnings) out.warnings.push(`${where}: ${exception.key}: ${w.path === "" ? "" : `${w.path}: `}${w.message}`);
    out.exceptions.push(exception);
  }
  return out;
}
