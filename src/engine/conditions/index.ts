export { evaluateConditions, evaluateConditionBlocks } from "./evaluate.js";
export { compileConditions, runConditions, type CompiledConditions } from "./compile.js";
export {
  OPERATOR_NAMES,
  checkOperatorName,
  isKnownOperatorName,
  operatorDeprecationWarning,
  operatorFor,
  type OperatorName,
} from "./operators.js";
export { equals, notEquals } from "./equal.js";
export { inOperator, notInOperator } from "./in.js";
export { anyIn, anyNotIn } from "./any-in.js";
export { allIn, allNotIn } from "./all-in.js";
export { numericOperator, type Comparison } from "./numeric.js";
export { durationOperator } from "./duration-operators.js";
export type {
  ConditionEvaluation,
  ConditionsContext,
  EvaluateOptions,
  OperatorFn,
  Substitute,
  SubstituteIn,
} from "./types.js";
