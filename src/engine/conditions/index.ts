export { evaluateConditionBlocks } from "./evaluate.js";
export { compileConditions, runConditions, type CompiledConditions } from "./compile.js";
export { checkOperatorName } from "./operators.js";

export type { ConditionEvaluation, Substitute } from "./types.js";
export { traceConditions, type ConditionsTrace } from "./trace.js";
