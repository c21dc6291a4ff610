/**
 * A string that is exactly one `{{ }}` variable (not `{{@}}`), prepared once: its query is trimmed
 * and compiled the first time it is resolved, and the DELETE variant (`request.object` read as
 * `request.oldObject`) the first time a DELETE request needs it. Resolving it gives exactly what
 * `resolveVariable` gives for the same expression, error texts included, without rewriting,
 * trimming or looking the query up again.
 */
import type { JsonValue } from "../api/json.js";
import { err, type Result } from "../api/result.js";
import { JmesPathError } from "../jmespath/types.js";
import type { Compiled } from "./expression-cache.js";
import { deleteRewrite, isDelete, SUBSTITUTION_ERROR } from "./resolve-variable.js";
import { goTrimSpace } from "./scanner.js";
import type { SubstitutionScope } from "./types.js";

/** One query as run: the variable as the error texts name it, its trimmed query, and the compiled query (none for an empty one). */
interface PreparedQuery {
  readonly variable: string;
  readonly query: string;
  readonly compiled: Compiled | undefined;
}

export class WholeVariable {
  #plain: PreparedQuery | undefined;
  #deleted: PreparedQuery | undefined;

  /** `expression`: the variable as the scan gives it (inner text, trimmed); never `@`. */
  constructor(readonly expression: string) {}

  /** The variable's value in `scope`, for the string found at Kyverno path `path`. */
  resolve(path: string, scope: SubstitutionScope): Result<JsonValue> {
    const prepared = isDelete(scope) ? (this.#deleted ??= this.#prepareDelete(scope)) : (this.#plain ??= prepare(this.expression, scope));
    const compiled = prepared.compiled;
    if (compiled === undefined) return failure(prepared, path, "invalid query (nil)");
    if (!compiled.ok) return failure(prepared, path, `incorrect query ${prepared.query}: ${compiled.error.message}`);
    try {
      return { ok: true, value: compiled.value.search(scope.data, scope.fnctx) ?? null };
    } catch (e) {
      const reason = e instanceof JmesPathError || e instanceof Error ? e.message : String(e);
      return failure(prepared, path, `JMESPath query failed: ${reason}`);
    }
  }

  #prepareDelete(scope: SubstitutionScope): PreparedQuery {
    const variable = deleteRewrite(this.expression);
    return variable === this.expression ? (this.#plain ??= prepare(variable, scope)) : prepare(variable, scope);
  }
}

function prepare(variable: string, scope: SubstitutionScope): PreparedQuery {
  const query = goTrimSpace(variable);
  return { variable, query, compiled: query === "" ? undefined : scope.cache.compile(query, scope.jmespath) };
}

function failure(prepared: PreparedQuery, path: string, reason: string): Result<JsonValue> {
  return err(SUBSTITUTION_ERROR, `failed to resolve ${prepared.variable} at path ${path}: ${reason}`, path);
}
