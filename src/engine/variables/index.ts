/** `{{ }}` variable substitution and `$( )` references, with Kyverno's semantics and messages. */
export type { FoundVariable, SubstitutionScope, Template, VariableMatch } from "./types.js";
export { ExpressionCache, type Compiled, type ExpressionCacheOptions } from "./expression-cache.js";
export { compileTemplate } from "./template.js";
export { scanVariables, unescapeVariables } from "./scanner.js";
export { substituteAll, substituteString } from "./substitute-all.js";
export { substituteText, MAX_PASSES } from "./substitute-text.js";
export { resolveVariable, currentValuePath, SUBSTITUTION_ERROR } from "./resolve-variable.js";
export { substituteReferences, REFERENCE_ERROR } from "./references.js";
export { findVariables } from "./find-variables.js";
export {
  prepareSubstitution,
  SYNTAX_ERROR,
  type PreparedSubstitution,
  type SubstitutionSyntaxError,
} from "./prepare.js";
export { goJson } from "../go/json-encode.js";
export { objectChildPath, arrayChildPath } from "./kyverno-path.js";
