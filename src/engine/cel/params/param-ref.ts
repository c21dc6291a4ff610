/**
 * A Kubernetes ParamRef (a ValidatingAdmissionPolicyBinding's `spec.paramRef`, a validate.cel rule's
 * `paramRef`), checked as the API server checks it and compiled once.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import type { LabelSelector } from "../../api/policy.js";
import { problem, type PolicyProblem } from "../../api/problem.js";
import type { ParamKind } from "../../ports.js";

/** `paramKind`: the kind of the objects a paramRef names. */
export type ParamKindRef = ParamKind;

/** One object by name, or every object a selector picks. */
export interface CompiledParamRef {
  readonly name: string | undefined;
  readonly selector: LabelSelector | undefined;
  /** "" when unset: the request's namespace, for a namespaced paramKind. */
  readonly namespace: string;
  /**
   * What no object found means: Allow skips; Deny answers under the policy's failurePolicy. Undefined:
   * a binding that does not say (Kyverno's CLI reads it as not Deny; admission-policy/with-cluster.ts).
   */
  readonly notFound: "Allow" | "Deny" | undefined;
}

function text(o: JsonObject, key: string): string {
  const v = o[key];
  return typeof v === "string" ? v : "";
}

/**
 * A Kubernetes ParamRef at `field`. `mode` "rule" (a validate.cel rule, checked as Kyverno's policy
 * validation checks it): name and selector are exclusive and one is required, and no
 * parameterNotFoundAction finds no params as Allow does. `mode` "binding" (a
 * ValidatingAdmissionPolicyBinding, which Kyverno 1.19's CLI decodes against the OpenAPI schema only,
 * pkg/cli/kubectl-kyverno/policy `kubectlValidateLoader`, never running the API server's validation):
 * only the types and the parameterNotFoundAction enum are checked; an action left out stays unset.
 */
export function compileParamRef(
  v: JsonValue | undefined,
  what: string,
  problems: PolicyProblem[],
  field = "spec.paramRef",
  mode: "rule" | "binding" = "binding",
): CompiledParamRef | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) {
    problems.push(problem(field, `${what}: ${field} must be a mapping`));
    return undefined;
  }
  const name = text(v, "name");
  const rawSelector = v["selector"];
  if (rawSelector !== undefined && rawSelector !== null && !isObject(rawSelector))
    problems.push(problem(`${field}.selector`, `${what}: ${field}.selector must be a mapping`));
  const selector = isObject(rawSelector) ? (rawSelector as LabelSelector) : undefined;
  if (mode === "rule" && name !== "" && selector !== undefined)
    problems.push(problem(field, `${what}: ${field}: Forbidden: name and selector are mutually exclusive`));
  if (mode === "rule" && name === "" && selector === undefined)
    problems.push(problem(field, `${what}: ${field}: Required value: one of name or selector must be set`));
  const given = v["parameterNotFoundAction"];
  const action = given === undefined || given === null ? (mode === "rule" ? "Allow" : undefined) : given;
  if (action !== undefined && action !== "Allow" && action !== "Deny") {
    problems.push(
      problem(
        `${field}.parameterNotFoundAction`,
        `${what}: ${field}.parameterNotFoundAction: Unsupported value: ${JSON.stringify(action)}: supported values: "Allow", "Deny"`,
      ),
    );
    return undefined;
  }
  return { name: name === "" ? undefined : name, selector, namespace: text(v, "namespace"), notFound: action };
}
