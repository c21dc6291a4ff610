/**
 * The JMESPath interpreter for Kyverno's dialect (go-jmespath fork): the original specification,
 * functions that may replace built-ins, and `Unknown key "x" in path` on missing map keys.
 */
export { createJmesPath } from "./create-engine.js";

export { formatAst } from "./format-ast.js";

export { goJsonMarshal } from "../go/json-encode.js";

export { type FunctionDef } from "./types.js";
