/**
 * A Kubernetes ValidatingAdmissionPolicy (admissionregistration.k8s.io) compiled once, together with
 * one of the ValidatingAdmissionPolicyBindings that name it: what evaluate.ts runs per request. The
 * policy's own fields compile as a ValidatingPolicy's do (validating-policy/compile-body.ts: same
 * fields, same meaning); the binding adds its matchResources, paramRef and validationActions.
 */
import type { LabelSelector } from "../../api/policy.js";
import type { ParamKind } from "../../ports.js";
import type { CompiledValidatingPolicy } from "../validating-policy/compiled.js";
import type { CompiledConstraints } from "../validating-policy/match-constraints.js";

/** `spec.paramKind`: the kind of the objects a binding's paramRef names. */
export type ParamKindRef = ParamKind;

/** A binding's `spec.paramRef`: one object by name, or every object a selector picks. */
export interface CompiledParamRef {
  readonly name: string | undefined;
  readonly selector: LabelSelector | undefined;
  /** "" when unset: the request's namespace, for a namespaced paramKind. */
  readonly namespace: string;
  /** What no object found means: Allow skips the binding; Deny answers under the policy's failurePolicy. */
  readonly notFound: "Allow" | "Deny";
}

export type ValidationAction = "Deny" | "Warn" | "Audit";

export interface CompiledBinding {
  readonly name: string;
  /** `spec.matchResources`, narrowing the policy's matchConstraints; undefined: no narrowing. */
  readonly constraints: CompiledConstraints | undefined;
  readonly paramRef: CompiledParamRef | undefined;
  readonly actions: readonly ValidationAction[];
  /** Whether `spec.matchResources.namespaceSelector` selects by labels (it then needs the namespace's). */
  readonly readsNamespaceLabels: boolean;
}

export interface CompiledAdmissionPolicy {
  readonly kind: "admission-policy";
  readonly policyName: string;
  /** matchConstraints, failurePolicy, matchConditions, variables, validations, auditAnnotations. */
  readonly body: CompiledValidatingPolicy;
  readonly paramKind: ParamKindRef | undefined;
  /** undefined: a policy no loaded binding names, evaluated on its own as Kyverno's CLI does. */
  readonly binding: CompiledBinding | undefined;
}

export function isAdmissionPolicy(x: object): x is CompiledAdmissionPolicy {
  return (x as { kind?: unknown }).kind === "admission-policy";
}
