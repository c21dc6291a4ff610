/**
 * Load-time work for a policy fragment: scan every string once and compile every first-pass
 * expression (and its DELETE form, which reads `request.oldObject`) into the policy's cache, so
 * evaluation never re-parses. JMESPath syntax errors are reported with the path of their string.
 */
import type { JsonValue } from "../api/json.js";
import { ok, type EngineError, type Result } from "../api/result.js";
import type { ExpressionCache } from "./expression-cache.js";
import { forEachString } from "./walk-strings.js";

const SYNTAX_ERROR = "jmespath-syntax";

interface PreparedSubstitution {
  /** How many distinct expressions were compiled. */
  readonly expressions: number;
}

/** The error of `prepareSubstitution`: a summary message, and one problem per bad expression. */
interface SubstitutionSyntaxError extends EngineError {
  readonly problems: readonly EngineError[];
}

function prepareExpression(
  expression: string,
  path: string,
  cache: ExpressionCache,
  seen: Set<string>,
  problems: EngineError[],
): void {
  // `{{@}}` and an empty `{{ }}` depend on where they are evaluated; nothing to compile ahead.
  if (expression === "@" || expression === "" || seen.has(expression)) return;
  seen.add(expression);
  const compiled = cache.compile(expression);
  if (!compiled.ok) {
    problems.push({
      kind: SYNTAX_ERROR,
      message: `failed to resolve ${expression} at path ${path}: incorrect query ${expression}: ${compiled.error.message}`,
      path,
    });
    return;
  }
  const onDelete = expression.replaceAll("request.object", "request.oldObject");
  if (onDelete !== expression) cache.compile(onDelete);
}

/** Pre-compiles every expression found in `value` (whose own Kyverno path is `basePath`). */
export function prepareSubstitution(
  value: JsonValue,
  cache: ExpressionCache,
  basePath = "",
): Result<PreparedSubstitution, SubstitutionSyntaxError> {
  const problems: EngineError[] = [];
  const seen = new Set<string>();
  cache.pin(() => {
    forEachString(value, basePath, (text, path) => {
      if (!text.includes("{{")) return;
      for (const m of cache.template(text).matches) prepareExpression(m.expression, path, cache, seen, problems);
    });
  });
  if (problems.length === 0) return ok({ expressions: seen.size });
  const summary = problems.map((p) => p.message).join("; ");
  return { ok: false, error: { kind: SYNTAX_ERROR, message: `invalid JMESPath in variables: ${summary}`, problems } };
}
