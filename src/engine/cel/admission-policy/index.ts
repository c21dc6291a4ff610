/** Kubernetes ValidatingAdmissionPolicy and its bindings: compiled at load (policy/admission-policy.ts builds the policy), evaluated per request. */
export {
  compileBinding,
  isAdmissionBindingDocument,
  ADMISSION_API_VERSIONS,
  MUTATING_ADMISSION_API_VERSIONS,
} from "./binding.js";
export { evaluateAdmissionPolicy } from "./evaluate.js";
export { type CompiledAdmissionPolicy, type CompiledBinding } from "./compiled.js";
