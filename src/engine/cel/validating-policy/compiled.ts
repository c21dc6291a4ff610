/** A ValidatingPolicy (policies.kyverno.io) compiled once: what evaluate.ts runs per request. */
import type { CelProgram } from "../types.js";
import type { CompiledConstraints } from "./match-constraints.js";

interface CompiledPolicyValidation {
  readonly expression: string;
  readonly program: CelProgram;
  readonly message: string;
  readonly messageExpression: CelProgram | undefined;
}

export interface CompiledValidatingPolicy {
  readonly kind: "validating-policy";
  /**
   * spec.evaluation.mode: "JSON" evaluates payloads that are not Kubernetes objects (engine.validateJson),
   * "HTTP" HTTP requests and "Envoy" Envoy checks (engine.validateAuthz; its validations answer the
   * mode's CheckResponse or null),
   * never admission requests.
   */
  readonly mode: "Kubernetes" | "JSON" | "HTTP" | "Envoy";
  readonly constraints: CompiledConstraints;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly matchConditions: readonly { readonly name: string; readonly program: CelProgram }[];
  readonly variables: readonly { readonly name: string; readonly program: CelProgram }[];
  readonly validations: readonly CompiledPolicyValidation[];
  readonly auditAnnotations: readonly { readonly key: string; readonly program: CelProgram }[];
}

/** The rule name of a ValidatingPolicy's results: empty, as Kyverno reports the CEL kinds. */
export const VALIDATING_POLICY_RULE = "";
