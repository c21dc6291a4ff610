/**
 * Evaluates one variable the way Kyverno's JSON context answers a query: `{{@}}` becomes the
 * current value's path, DELETE reads `request.oldObject`, and every failure is reported as
 * `failed to resolve <variable> at path <path>: <reason>`.
 */
import type { JsonValue } from "../api/json.js";
import { err, type Result } from "../api/result.js";
import { JmesPathError } from "../jmespath/types.js";
import { componentsToJmesPath, parseTraversalPath, skipN, skipPast } from "./kyverno-path.js";
import type { Compiled } from "./expression-cache.js";
import { goTrimSpace } from "./scanner.js";
import { failureNamedBy } from "./deferred-failures.js";
import type { SubstitutionScope } from "./types.js";

export const SUBSTITUTION_ERROR = "variable-substitution";

/** Whether variables read `request.oldObject` for `request.object` (a DELETE request). */
export function isDelete(scope: SubstitutionScope): boolean {
  if (scope.operation !== undefined) return scope.operation === "DELETE";
  const request = scope.data["request"];
  return (
    typeof request === "object" && request !== null && !Array.isArray(request) && request["operation"] === "DELETE"
  );
}

function usesTarget(scope: SubstitutionScope): boolean {
  return scope.target ?? Object.hasOwn(scope.data, "target");
}

/**
 * The JMESPath of the value at `path`: skip past the first `foreach`, then the two components that
 * name the rule part (e.g. `mutate/patchStrategicMerge`), and prefix `target` or `request.object`.
 */
export function currentValuePath(path: string, scope: SubstitutionScope): string {
  const prefix = usesTarget(scope) ? ["target"] : ["request", "object"];
  const components = skipN(skipPast(parseTraversalPath(path), "foreach"), 2);
  return componentsToJmesPath([...prefix, ...components]);
}

/** The query Kyverno runs for `expression` found at `path`, after the `@` and DELETE rewrites. */
export function rewriteExpression(expression: string, path: string, scope: SubstitutionScope): string {
  let variable = expression;
  if (variable === "@") variable = currentValuePath(path, scope);
  if (isDelete(scope)) variable = deleteRewrite(variable);
  return variable;
}

/** The DELETE rewrite: every `request.object` reads `request.oldObject`. */
export function deleteRewrite(variable: string): string {
  return variable.replaceAll("request.object", "request.oldObject");
}

/** A variable's query as Kyverno runs it: the variable as error texts name it, trimmed, and compiled (none when empty). */
export interface PreparedQuery {
  readonly variable: string;
  readonly query: string;
  readonly compiled: Compiled | undefined;
}

export function prepareQuery(variable: string, scope: SubstitutionScope): PreparedQuery {
  const query = goTrimSpace(variable);
  return { variable, query, compiled: query === "" ? undefined : scope.cache.compile(query, scope.jmespath) };
}

/** Runs a prepared query on the scope's data; every failure reads `failed to resolve <variable> at path <path>: <reason>`. */
export function runQuery(prepared: PreparedQuery, path: string, scope: SubstitutionScope): Result<JsonValue> {
  const compiled = prepared.compiled;
  if (compiled === undefined) return failure(prepared, path, "invalid query (nil)");
  if (!compiled.ok) return failure(prepared, path, `incorrect query ${prepared.query}: ${compiled.error.message}`);
  const unloaded = failureNamedBy(prepared.query, scope.deferred);
  if (unloaded !== undefined) return failure(prepared, path, unloaded.message);
  try {
    return { ok: true, value: compiled.value.search(scope.data, scope.fnctx) ?? null };
  } catch (e) {
    const reason = e instanceof JmesPathError || e instanceof Error ? e.message : String(e);
    return failure(prepared, path, `JMESPath query failed: ${reason}`);
  }
}

function failure(prepared: PreparedQuery, path: string, reason: string): Result<JsonValue> {
  return err(SUBSTITUTION_ERROR, `failed to resolve ${prepared.variable} at path ${path}: ${reason}`, path);
}

/** Evaluates the variable `expression` (as written, trimmed) found in the string at `path`. */
export function resolveVariable(expression: string, path: string, scope: SubstitutionScope): Result<JsonValue> {
  return runQuery(prepareQuery(rewriteExpression(expression, path, scope), scope), path, scope);
}
