/**
 * A `variable` context entry, with Kyverno's outcomes and texts (its variable loader,
 * pkg/engine/context/loaders/variable.go, read to settle them):
 * - the default's, the value's and the jmesPath's own variables are substituted first; a failure of
 *   any of them is the entry's error, whatever the default (`failed to substitute variables in
 *   context entry NAME <what was written>: …`);
 * - a jmesPath without a value queries the context: a failing query takes the default, without one
 *   it is `failed to apply jmespath PATH to variable <nil>: JMESPath query failed: …`; a query
 *   giving null takes the default;
 * - a jmesPath over a value: a failing query takes the default, without one `failed to apply
 *   jmespath PATH to variable <nil>: …`; a query giving null gives null, default or not;
 * - what comes out null is `failed to add context entry for variable NAME since it evaluated to nil`.
 * A jmesPath that reads an entry that failed to load fails with that entry's error (or its default stands).
 */
import type { JsonValue } from "../api/json.js";
import type { ContextEntry } from "../api/policy.js";
import { err, ok, type Result } from "../api/result.js";
import { failureNamedBy, substituteAll, substituteString, type SubstitutionScope } from "../variables/index.js";
import { goFormatValue } from "../go/format-value.js";

/** Kyverno's variable loader's errors: the text is the entry's whole error (no "failed to load context entry" around it). */
export const VARIABLE_ERROR = "variable";

export function loadVariable(
  name: string,
  v: NonNullable<ContextEntry["variable"]>,
  scope: SubstitutionScope,
): Result<JsonValue | undefined> {
  const failed = (written: JsonValue, reason: string): Result<JsonValue | undefined> =>
    err(VARIABLE_ERROR, `failed to substitute variables in context entry ${name} ${goFormatValue(written)}: ${reason}`);
  let path = "";
  if (v.jmesPath !== undefined && v.jmesPath !== "") {
    const sub = substituteString(v.jmesPath, scope);
    if (!sub.ok) return failed(v.jmesPath, sub.error.message);
    path = typeof sub.value === "string" ? sub.value : JSON.stringify(sub.value);
  }
  let dflt: JsonValue | undefined;
  if (v.default !== undefined) {
    const sub = substituteAll(v.default, scope);
    if (!sub.ok) return failed(v.default, sub.error.message);
    dflt = sub.value;
  }
  let output = dflt ?? null;
  if (v.value !== undefined && v.value !== null) {
    const sub = substituteAll(v.value, scope);
    if (!sub.ok) return failed(v.value, sub.error.message);
    if (path === "") output = sub.value;
    else {
      const searched = search(path, sub.value, scope, "");
      if (searched.ok) output = searched.value;
      else if (dflt === undefined) return searched;
    }
  } else if (path !== "") {
    // The query reads the context: naming an entry that failed to load, it fails with it, or the default stands.
    const unloaded = failureNamedBy(path, scope.deferred);
    if (unloaded !== undefined) return dflt !== undefined ? ok(dflt) : err(unloaded.kind, unloaded.message);
    const searched = search(path, scope.data, scope, "JMESPath query failed: ");
    if (searched.ok) {
      if (searched.value !== null) output = searched.value;
    } else if (dflt === undefined) return searched;
  }
  if (output === null)
    return err(VARIABLE_ERROR, `failed to add context entry for variable ${name} since it evaluated to nil`);
  return ok(output);
}

/** `path` over `data`; a failure reads as Kyverno's loader words it (`reason` goes before the query's own error). */
function search(path: string, data: JsonValue, scope: SubstitutionScope, reason: string): Result<JsonValue> {
  const fail = (message: string): Result<JsonValue> =>
    err(VARIABLE_ERROR, `failed to apply jmespath ${path} to variable <nil>: ${message}`);
  let compiled;
  try {
    compiled = scope.cache.get(path);
  } catch (e) {
    return fail(`failed to compile JMESPath: ${path}, error: ${(e as Error).message}`);
  }
  try {
    return ok(compiled.search(data, scope.fnctx) ?? null);
  } catch (e) {
    return fail(`${reason}${(e as Error).message}`);
  }
}
