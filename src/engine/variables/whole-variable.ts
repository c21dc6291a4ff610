/**
 * A string that is exactly one `{{ }}` variable (not `{{@}}`), prepared once: its query is trimmed
 * and compiled the first time it is resolved, and the DELETE variant (`request.object` read as
 * `request.oldObject`) the first time a DELETE request needs it. Resolving it runs the same query
 * as `resolveVariable` (resolve-variable.ts), error texts included, without rewriting, trimming or
 * looking the query up again.
 */
import type { JsonValue } from "../api/json.js";
import type { Result } from "../api/result.js";
import { deleteRewrite, isDelete, prepareQuery, runQuery, type PreparedQuery } from "./resolve-variable.js";
import type { SubstitutionScope } from "./types.js";

export class WholeVariable {
  #plain: PreparedQuery | undefined;
  #deleted: PreparedQuery | undefined;

  /** `expression`: the variable as the scan gives it (inner text, trimmed); never `@`. */
  constructor(readonly expression: string) {}

  /** The variable's value in `scope`, for the string found at Kyverno path `path`. */
  resolve(path: string, scope: SubstitutionScope): Result<JsonValue> {
    const prepared = isDelete(scope)
      ? (this.#deleted ??= this.#prepareDelete(scope))
      : (this.#plain ??= prepareQuery(this.expression, scope));
    return runQuery(prepared, path, scope);
  }

  #prepareDelete(scope: SubstitutionScope): PreparedQuery {
    const variable = deleteRewrite(this.expression);
    return variable === this.expression
      ? (this.#plain ??= prepareQuery(variable, scope))
      : prepareQuery(variable, scope);
  }
}
