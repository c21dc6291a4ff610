/**
 * A Kubernetes ValidatingAdmissionPolicy (admissionregistration.k8s.io) compiled once, together with
 * the ValidatingAdmissionPolicyBindings that name it, in the order given: what evaluate.ts runs per
 * request. The policy's own fields compile as a ValidatingPolicy's do (validating-policy/compile-body.ts:
 * same fields, same meaning); each binding adds its matchResources, paramRef and validationActions.
 */
import type { CompiledParamRef, ParamKindRef } from "../params/index.js";
import type { CompiledValidatingPolicy } from "../validating-policy/compiled.js";
import type { CompiledConstraints } from "../validating-policy/match-constraints.js";

export type ValidationAction = "Deny" | "Warn" | "Audit";

export interface CompiledBinding {
  readonly name: string;
  /** `spec.matchResources`; undefined: the binding matches every resource (Kyverno's CLI, offline). */
  readonly constraints: CompiledConstraints | undefined;
  readonly paramRef: CompiledParamRef | undefined;
  readonly actions: readonly ValidationAction[];
}

export interface CompiledAdmissionPolicy {
  readonly kind: "admission-policy";
  readonly policyName: string;
  /** matchConstraints, failurePolicy, matchConditions, variables, validations, auditAnnotations. */
  readonly body: CompiledValidatingPolicy;
  /** Checked at load; Kyverno's CLI does not consult it when a binding chooses params (params/binding-params.ts). */
  readonly paramKind: ParamKindRef | undefined;
  /** Empty: a policy no loaded binding names, evaluated on its own as Kyverno's CLI does. */
  readonly bindings: readonly CompiledBinding[];
}
