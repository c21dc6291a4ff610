/** ValidatingPolicy (policies.kyverno.io): its spec compiled at load (policy/validating-policy.ts builds the policy), evaluated per request. */
export { compileBodies } from "./compile-body.js";
export { evaluateValidatingPolicy } from "./evaluate.js";
export { VALIDATING_POLICY_RULE, type CompiledValidatingPolicy } from "./compiled.js";
export type { ResourceRule } from "./match-constraints.js";
export { EXCEPTION_RULE } from "./exceptions.js";
