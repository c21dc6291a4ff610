/** Parameter objects (paramKind + paramRef) for ValidatingAdmissionPolicy bindings and validate.cel rules: compiled once, resolved per request. */
export { compileParamRef, type CompiledParamRef, type ParamKindRef } from "./param-ref.js";
export { NAMESPACED_PARAMS_FOR_CLUSTER_SCOPED, resolveParams, type ParamOutcome } from "./resolve.js";
export { selectBindingParams } from "./binding-params.js";
