/**
 * The JMESPath interpreter for Kyverno's dialect (go-jmespath fork): the original specification,
 * functions that may replace built-ins, and `Unknown key "x" in path` on missing map keys.
 */
export { createJmesPath, type JmesPathOptions } from "./create-engine.js";
export { builtinFunctions } from "./functions/builtin/index.js";
export { formatAst } from "./format-ast.js";
export { DEFAULT_LIMITS, type JmesPathLimits } from "./limits.js";
export { JmesPathSyntaxError } from "./errors.js";
export { isFalse as isJmesPathFalse, deepEqual as jmesPathEqual } from "./values.js";
export { goJsonMarshal, goJsonString, goJsonNumber, GoJsonEncodeError } from "../go/json-encode.js";
export { goJsonUnmarshal, GoJsonDecodeError } from "../go/json-decode.js";
export { goFormatFloat, goFormatValue } from "../go/format-value.js";
export { goParseFloat } from "../go/parse-float.js";
export { compareCodePoints, codePointLength } from "../go/strings.js";
export {
  JmesPathError,
  type ArgSpec,
  type CompiledExpression,
  type EvaluationBudget,
  type ExpressionRef,
  type FunctionArg,
  type FunctionContext,
  type FunctionDef,
  type JmesPathEngine,
  type JmesType,
} from "./types.js";
