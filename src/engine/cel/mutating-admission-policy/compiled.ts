/**
 * A Kubernetes MutatingAdmissionPolicy (admissionregistration.k8s.io v1alpha1, v1beta1, v1) compiled once,
 * together with the MutatingAdmissionPolicyBindings that name it, in the order given: what
 * evaluate.ts runs per request. Its matchConstraints, matchConditions, variables and mutations
 * compile as a MutatingPolicy's do (mutating-policy/compile.ts), in Kubernetes' CEL environment.
 */
import type { CompiledBinding } from "../admission-policy/index.js";
import type { CompiledMutatingBody } from "../mutating-policy/compiled.js";

export interface CompiledMutatingAdmissionPolicy {
  readonly policyName: string;
  /** matchConstraints, matchConditions, variables and mutations; `failure` when an expression did not compile. */
  readonly body: CompiledMutatingBody;
  /** `spec.failurePolicy` (Fail when unset): an error in matchConditions under Ignore is a skip. */
  readonly failurePolicy: "Fail" | "Ignore";
  /** Empty: a policy no loaded binding names, evaluated on its own as Kyverno's CLI does. */
  readonly bindings: readonly CompiledBinding[];
}
