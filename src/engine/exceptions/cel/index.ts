/** policies.kyverno.io PolicyExceptions (the CEL kinds' exceptions): compile once, pick those naming a policy. */
export { compileCelException } from "./compile-cel-exception.js";
export { celExceptionsFor, type CelExceptionScope } from "./applicable.js";
export {
  CEL_EXCEPTION_API_VERSIONS,
  EXCEPTION_PRIORITY_LABEL,
  isCelException,
  type AnyCompiledException,
  type CelExceptionApiVersion,
  type CompileCelExceptionOutcome,
  type CompiledCelException,
  type PolicyRef,
} from "./types.js";
