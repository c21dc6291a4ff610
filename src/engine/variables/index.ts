/** `{{ }}` variable substitution and `$( )` references, with Kyverno's semantics and messages. */
export type { SubstitutionScope } from "./types.js";
export { deferredFailure, failureNamedBy, namesEntry, type DeferredFailure } from "./deferred-failures.js";
export { ExpressionCache } from "./expression-cache.js";

export { substituteAll, substituteString } from "./substitute-all.js";

export { prepareSubstitution } from "./prepare.js";
export { goJson } from "../go/json-encode.js";
