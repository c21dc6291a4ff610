/** Kyverno PolicyExceptions (`kyverno.io/v2`, `kyverno.io/v2beta1`): compile, match, and Kyverno's texts. */
export type { CompiledException } from "./types.js";

export { compileException } from "./compile-exception.js";
export { exceptionCovers, matchExceptions, exceptionPolicyKey } from "./match-exceptions.js";
export { exceptionSkipMessage } from "./messages.js";
export { podSecurityExceptionPlan } from "./pod-security.js";
