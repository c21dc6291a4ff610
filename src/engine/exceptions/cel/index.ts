/** policies.kyverno.io PolicyExceptions (the CEL kinds' exceptions): compile once, pick those naming a policy. */
export { compileCelException } from "./compile-cel-exception.js";
export { celExceptionsFor, exceptionRefusal } from "./applicable.js";
export { isCelException, type AnyCompiledException, type CompiledCelException } from "./types.js";
