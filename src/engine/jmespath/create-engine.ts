/**
 * `createJmesPath`: an interpreter with a fixed function table, the standard built-ins overlaid by
 * the given functions. As in Kyverno's fork, registration is a map write: a function with a
 * built-in's name replaces the built-in (Kyverno's `sum` does).
 */
import { bindFunction, type BoundFunction } from "./function-call.js";
import { compileExpression } from "./compile.js";
import { builtinFunctions } from "./functions/builtin/index.js";
import { resolveLimits, type JmesPathLimits } from "./limits.js";
import type { CompiledExpression, FunctionDef, JmesPathEngine } from "./types.js";

interface JmesPathOptions {
  /** Functions registered after the built-ins; a same-named function replaces the built-in. */
  readonly functions: readonly FunctionDef[];
  /** Bounds for hostile input; each defaults to `DEFAULT_LIMITS`. */
  readonly limits?: Partial<JmesPathLimits>;
}

export function createJmesPath(options: JmesPathOptions): JmesPathEngine & { readonly limits: JmesPathLimits } {
  const table = new Map<string, FunctionDef>();
  for (const def of builtinFunctions) table.set(def.name, def);
  for (const def of options.functions) table.set(def.name, def);
  const bound = new Map<string, BoundFunction>();
  for (const [name, def] of table) bound.set(name, bindFunction(def));
  const limits = resolveLimits(options.limits);
  const resolve = (name: string): BoundFunction | undefined => bound.get(name);
  return {
    functions: table,
    limits,
    compile(expression: string): CompiledExpression {
      return compileExpression(expression, { limits, resolve });
    },
  };
}
