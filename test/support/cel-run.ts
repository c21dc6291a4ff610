/** Test helpers: compile and run one expression against a resource, answering JSON or the error text. */
import type { JsonValue } from "../../src/engine/api/json.js";
import { createCel } from "../../src/engine/cel/create-cel.js";
import type { CelEngine } from "../../src/engine/cel/types.js";
import { fromCel, toCel } from "../../src/engine/cel/values.js";

let shared: CelEngine | undefined;

export function celEngine(): CelEngine {
  shared ??= createCel();
  return shared;
}

export function activation(object: JsonValue = {}): Record<string, unknown> {
  return { object: toCel(object), oldObject: null, request: {}, params: null, namespaceObject: null, variables: {} };
}

/** The JSON result, or `compile: …` / `eval: …` with the error message. */
export function run(expression: string, object: JsonValue = {}): JsonValue {
  const compiled = celEngine().compile(expression);
  if (!compiled.ok) return `compile: ${compiled.error.message}`;
  const result = compiled.value.evaluate(activation(object));
  return result.ok ? fromCel(result.value) : `eval: ${result.error.message}`;
}
