/** The CEL environment (ADR 0010): compile once with `createCel`, evaluate many times. */
export { ADMISSION_REQUEST_FIELDS, createCel, KYVERNO_VARIABLES, type CreateCelOptions } from "./create-cel.js";
export { sharedCel, type SharedCelKind } from "./shared-cel.js";
export { fromCel, toCel, type CelInput } from "./values.js";
export {
  BUDGET_EXCEEDED_MESSAGE,
  COST_LIMIT_MESSAGE,
  PER_CALL_COST_LIMIT,
  RUNTIME_COST_BUDGET,
  type CelActivation,
  type CelCompileError,
  type CelCompileOptions,
  type CelEngine,
  type CelEvalError,
  type CelProgram,
  type CostBudget,
} from "./types.js";
