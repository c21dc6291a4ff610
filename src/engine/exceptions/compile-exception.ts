/** parse → check → compile the match block once. Evaluation never re-reads the document. */
import type { JsonValue } from "../api/json.js";
import { exceedsDepth, isStackOverflow, MAX_DOCUMENT_DEPTH } from "../api/json-depth.js";
import { compileConditions } from "../conditions/index.js";
import { problem } from "../api/problem.js";
import { checkException } from "./check-exception.js";
import { compileExceptionMatch } from "./exception-matcher.js";
import { exceptionKey } from "./messages.js";
import { exceptionSchemaProblems, parseException } from "./parse-exception.js";
import type { CompileExceptionOutcome, CompiledException } from "./types.js";

/**
 * Compile one PolicyException document. `source` says where it came from (e.g.
 * `exceptions.yaml: document 2`) and is kept for messages. Errors carry field paths such as
 * `spec.exceptions[0].policyName`; warnings stay on the compiled exception.
 */
export function compileException(doc: JsonValue, source?: string): CompileExceptionOutcome {
  if (exceedsDepth(doc, MAX_DOCUMENT_DEPTH)) {
    return { ok: false, problems: [problem("", `the exception is nested deeper than ${MAX_DOCUMENT_DEPTH} levels`)] };
  }
  try {
    return compileChecked(doc, source);
  } catch (e) {
    if (isStackOverflow(e))
      return { ok: false, problems: [problem("", "the exception is too deeply nested to compile")] };
    throw e;
  }
}

function compileChecked(doc: JsonValue, source: string | undefined): CompileExceptionOutcome {
  const { parsed, problems } = parseException(doc);
  if (parsed === undefined) return { ok: false, problems: [...problems, ...exceptionSchemaProblems(doc, problems)] };
  problems.push(...checkException(parsed));
  problems.push(...exceptionSchemaProblems(doc, problems));
  if (problems.some((p) => p.severity === "error")) return { ok: false, problems };
  const exception: CompiledException = {
    name: parsed.name,
    namespace: parsed.namespace,
    key: exceptionKey(parsed.namespace, parsed.name),
    apiVersion: parsed.apiVersion,
    entries: parsed.entries,
    background: parsed.background,
    ...(parsed.conditions !== undefined
      ? { conditions: parsed.conditions, compiledConditions: compileConditions(parsed.conditions, "preconditions") }
      : {}),
    podSecurity: parsed.podSecurity,
    matcher: compileExceptionMatch(parsed.match),
    ...(source !== undefined ? { source } : {}),
    warnings: problems,
    document: parsed.document,
  };
  return { ok: true, exception };
}
