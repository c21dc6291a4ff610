/**
 * Test support for this folder: an engine with the built-ins, stub ports, and shorthands to
 * evaluate an expression or capture its error.
 */
import type { JsonValue } from "../../src/engine/api/json.js";
import type { EnginePorts } from "../../src/engine/ports.js";
import { createJmesPath } from "../../src/engine/jmespath/create-engine.js";
import type { JmesPathLimits } from "../../src/engine/jmespath/limits.js";
import { JmesPathError, type FunctionContext, type FunctionDef } from "../../src/engine/jmespath/types.js";

/** Ports that fail loudly if touched: the built-in functions need none. */
export const stubPorts = new Proxy(
  {},
  {
    get(_target, name) {
      throw new Error(`port ${String(name)} is not available in JMESPath tests`);
    },
  },
) as EnginePorts;

export const stubContext: FunctionContext = { ports: stubPorts };

export interface TestEngineOptions {
  readonly functions?: readonly FunctionDef[];
  readonly limits?: Partial<JmesPathLimits>;
}

export function search(expression: string, data: JsonValue, opts: TestEngineOptions = {}): JsonValue {
  const engine = createJmesPath(
    opts.limits === undefined
      ? { functions: opts.functions ?? [] }
      : { functions: opts.functions ?? [], limits: opts.limits },
  );
  return engine.compile(expression).search(data, stubContext);
}

/** The error `expression` raises (at compile or search time), or undefined if it succeeds. */
export function errorOf(
  expression: string,
  data: JsonValue = null,
  opts: TestEngineOptions = {},
): { kind: string; message: string } | undefined {
  try {
    search(expression, data, opts);
    return undefined;
  } catch (e) {
    if (e instanceof JmesPathError) return { kind: e.kind, message: e.message };
    throw e;
  }
}
