/**
 * PolicyException documents (kyverno.io/v2, v2beta1, and policies.kyverno.io v1, v1beta1,
 * v1alpha1 for the CEL kinds) compiled once, for `bylaw apply -e` and a test's `exceptions:`
 * files. Other documents are skipped with a warning; a document that is not a valid exception is
 * an error naming the file, document and field.
 */
import { type AnyCompiledException, type Engine, isObject } from "../engine/index.js";
import { documentPlace, problemText } from "../platform/policy-documents/index.js";
import type { LoadedDocument } from "../platform/yaml/index.js";

export interface LoadedExceptions {
  readonly exceptions: AnyCompiledException[];
  readonly errors: string[];
  readonly warnings: string[];
}

/** `readErrorPrefix` goes before file read/parse errors (e.g. `--exception: `). */
export function compileExceptionDocuments(
  documents: readonly LoadedDocument[],
  engine: Engine,
  readErrorPrefix = "",
): LoadedExceptions {
  const out: LoadedExceptions = { exceptions: [], errors: [], warnings: [] };
  for (const d of documents) {
    const where = documentPlace(d);
    if (d.error !== undefined) {
      out.errors.push(`${readErrorPrefix}${d.error}`);
      continue;
    }
    if (d.value === undefined) continue;
    if (engine.classify(d.value).role !== "exception") {
      const found = isObject(d.value) ? d.value["kind"] : undefined;
      out.warnings.push(`${where}: skipped: not a PolicyException (kind ${JSON.stringify(found ?? "(none)")})`);
      continue;
    }
    const compiled = engine.compileException(d.value, where);
    if (!compiled.ok) {
      const text = compiled.problems
        .filter((p) => p.severity === "error")
        .map(problemText)
        .join("; ");
      out.errors.push(`${where}: invalid PolicyException: ${text}`);
      continue;
    }
    for (const w of compiled.exception.warnings) {
      if (w.severity === "warning")
        out.warnings.push(`${where}: ${compiled.exception.key}: ${w.path === "" ? "" : `${w.path}: `}${w.message}`);
    }
    out.exceptions.push(compiled.exception);
  }
  return out;
}
