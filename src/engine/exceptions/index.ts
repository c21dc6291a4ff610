/** Kyverno PolicyExceptions (`kyverno.io/v2`, `kyverno.io/v2beta1`): compile, match, and Kyverno's texts. */
export type {
  CompiledException,
  CompileExceptionOutcome,
  ExceptionApiVersion,
  ExceptionEntry,
  ExceptionMatchInput,
  ExceptionMatcher,
  MatchExceptionsOptions,
  PodSecurityExclusion,
} from "./types.js";
export { EXCEPTION_API_VERSIONS } from "./types.js";
export { compileException } from "./compile-exception.js";
export { matchExceptions, exceptionCovers, exceptionUsable, exceptionPolicyKey } from "./match-exceptions.js";
export { exceptionKey, exceptionSkipMessage } from "./messages.js";
export { podSecurityExclusions, podSecurityExceptionPlan, type PodSecurityExceptionPlan } from "./pod-security.js";
export { isPolicyExceptionDocument, type ExceptionDocumentKind } from "./document-kind.js";
