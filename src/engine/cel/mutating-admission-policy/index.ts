/** Kubernetes MutatingAdmissionPolicy and its bindings: compiled at load (kinds/mutating-admission-policy/), evaluated per resource. */
export { compileMutatingAdmissionPolicy } from "./compile.js";
export { evaluateMutatingAdmissionPolicy } from "./evaluate.js";
export type { CompiledMutatingAdmissionPolicy } from "./compiled.js";
