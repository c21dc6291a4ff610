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
  /** What no object found means: Allow skips; Deny answers under the policy's failurePolicy. */
  readonly notFound: "Allow" | "Deny";
}

function text(o: JsonObject, key: string): string {
  const v = o[key];
  return typeof v === "string" ? v : "";
}

/**
 * A Kubernetes ParamRef at `field`. `actionRequired`: a binding must say parameterNotFoundAction (the
 * API server requires it); a validate.cel rule may leave it out, which finds no params as Allow does.
 */
export function compileParamRef(v: JsonValue | undefined, what: string, problems: PolicyProblem[], field = "spec.paramRef", actionRequired = true): CompiledParamRef | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isObject(v)) {
    problems.push(problem(field, `${what}: ${field} must be a mapping`));
    return undefined;
  }
  const name = text(v, "name");
  const selector = isObject(v["selector"]) ? (v["selector"] as LabelSelector) : undefined;
  if (name !== "" && selector !== undefined) problems.push(problem(field, `${what}: ${field}: Forbidden: name and selector are mutually exclusive`));
  if (name === "" && selector === undefined) problems.push(problem(field, `${what}: ${field}: Required value: one of name or selector must be set`));
  const given = v["parameterNotFoundAction"];
  const action = (given === undefined || given === null) && !actionRequired ? "Allow" : given;
  if (action !== "Allow" && action !== "Deny") {
    problems.push(problem(`${field}.parameterNotFoundAction`, `${what}: ${field}.parameterNotFoundAction: ${action === undefined || action === null ? "Required value" : `Unsupported value: ${JSON.stringify(action)}: supported values: "Allow", "Deny"`}`));
    return undefined;
  }
  return { name: name === "" ? undefined : name, selector, namespace: text(v, "namespace"), notFound: action };
}
