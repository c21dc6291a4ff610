/**
 * What every compiler of policy documents shares: library/compile-documents.ts (`bylaw apply`,
 * `bylaw test`, createBylaw), library/compile-exceptions.ts, and `bylaw serve`'s
 * server/policy-source/compile-policy-set.ts, cluster-object-compiler.ts and cel-policy-compile.ts.
 */
export { compileGuarded } from "./compile-guarded.js";
export { compiledPolicyWarnings } from "./compiled-policy-warnings.js";
export { documentName, documentPlace } from "./document-place.js";
export { problemText } from "./problem-text.js";
export { withPolicyFixHint } from "./fix-hint.js";
