/**
 * A ValidatingAdmissionPolicyBinding (admissionregistration.k8s.io v1), compiled once and checked as
 * Kyverno 1.19's CLI checks it: against the OpenAPI schema only (pkg/cli/kubectl-kyverno/policy
 * `kubectlValidateLoader`), never with the API server's validation. So a binding without
 * `validationActions`, with Deny and Warn together, without `policyName`, or whose `paramRef` has no
 * `parameterNotFoundAction` (or both or neither of `name` and `selector`) loads and runs, as in
 * Kyverno's CLI. Refused, naming the field: a document that is not a mapping where the schema wants
 * one, an action outside the enums (Deny/Warn/Audit, Allow/Deny), and `matchResources` Bylaw cannot
 * compile. A binding that fails a check is a problem naming it and the field, never silently dropped.
 */
import { isObject, type JsonObject, type JsonValue, textOf } from "../../api/json.js";
import { problem, type PolicyProblem } from "../../api/problem.js";
import { compileConstraints } from "../validating-policy/match-constraints.js";
import { compileParamRef } from "../params/index.js";
import type { CompiledBinding, ValidationAction } from "./compiled.js";

export const ADMISSION_API_VERSIONS: ReadonlySet<string> = new Set([
  "admissionregistration.k8s.io/v1",
  "admissionregistration.k8s.io/v1beta1",
]);

/** The versions of MutatingAdmissionPolicy and its binding Kyverno 1.19's CLI reads (v1alpha1 and v1 are converted to v1beta1). */
export const MUTATING_ADMISSION_API_VERSIONS: ReadonlySet<string> = new Set([
  "admissionregistration.k8s.io/v1alpha1",
  "admissionregistration.k8s.io/v1beta1",
  "admissionregistration.k8s.io/v1",
]);

/** The binding kinds, by the policy kind they bind. */
const BINDING_KINDS = {
  ValidatingAdmissionPolicy: "ValidatingAdmissionPolicyBinding",
  MutatingAdmissionPolicy: "MutatingAdmissionPolicyBinding",
} as const;

type BoundKind = keyof typeof BINDING_KINDS;

const ACTIONS: ReadonlySet<string> = new Set(["Deny", "Warn", "Audit"]);

interface BoundBinding {
  /** The kind of policy the binding binds. */
  readonly of: BoundKind;
  readonly policyName: string;
  readonly binding: CompiledBinding;
}

type BindingOutcome = { ok: true; value: BoundBinding } | { ok: false; problems: PolicyProblem[] };

/** Whether a document is a Validating- or MutatingAdmissionPolicyBinding of an apiVersion Bylaw reads. */
export function isAdmissionBindingDocument(doc: JsonValue): doc is JsonObject {
  return boundKindOf(doc) !== undefined;
}

/** The policy kind a binding document of an apiVersion Bylaw reads binds; undefined for any other document. */
function boundKindOf(doc: JsonValue): BoundKind | undefined {
  if (!isObject(doc)) return undefined;
  const apiVersion = textOf(doc["apiVersion"]);
  if (doc["kind"] === BINDING_KINDS.ValidatingAdmissionPolicy && ADMISSION_API_VERSIONS.has(apiVersion))
    return "ValidatingAdmissionPolicy";
  if (doc["kind"] === BINDING_KINDS.MutatingAdmissionPolicy && MUTATING_ADMISSION_API_VERSIONS.has(apiVersion))
    return "MutatingAdmissionPolicy";
  return undefined;
}

function text(o: JsonObject, key: string): string {
  const v = o[key];
  return typeof v === "string" ? v : "";
}

/**
 * A MutatingAdmissionPolicyBinding (v1alpha1, v1beta1, v1) is checked the same way; it has no
 * `validationActions` (its `actions` stay empty).
 */
export function compileBinding(doc: JsonObject): BindingOutcome {
  const of = boundKindOf(doc) ?? "ValidatingAdmissionPolicy";
  const kind = BINDING_KINDS[of];
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = text(metadata, "name");
  if (name === "") return { ok: false, problems: [problem("metadata.name", `${kind}: metadata.name is required`)] };
  const what = `${kind} ${name}`;
  const spec = isObject(doc["spec"]) ? doc["spec"] : undefined;
  if (spec === undefined) return { ok: false, problems: [problem("spec", `${what}: spec is required`)] };
  const problems: PolicyProblem[] = [];
  // No policyName: the binding names no policy, so it binds none (Kyverno's CLI pairs by name).
  const policyName = text(spec, "policyName");
  const actions = of === "ValidatingAdmissionPolicy" ? actionsOf(spec["validationActions"], what, problems) : [];
  let constraints: CompiledBinding["constraints"];
  if (spec["matchResources"] !== undefined && spec["matchResources"] !== null) {
    const c = compileConstraints(spec, what, { field: "spec.matchResources", rulesRequired: false });
    if (c.ok) constraints = c.value;
    else problems.push(...c.problems);
  }
  const paramRef = compileParamRef(spec["paramRef"], what, problems);
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    value: { of, policyName, binding: { name, constraints, paramRef, actions } },
  };
}

function actionsOf(v: JsonValue | undefined, what: string, problems: PolicyProblem[]): ValidationAction[] {
  const field = "spec.validationActions";
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    problems.push(problem(field, `${what}: ${field} must be a list`));
    return [];
  }
  const out: ValidationAction[] = [];
  v.forEach((a, i) => {
    if (typeof a !== "string" || !ACTIONS.has(a))
      problems.push(
        problem(
          `${field}[${i}]`,
          `${what}: ${field}[${i}]: Unsupported value: ${JSON.stringify(a)}: supported values: "Audit", "Deny", "Warn"`,
        ),
      );
    else if (!out.includes(a as ValidationAction)) out.push(a as ValidationAction);
  });
  return out;
}
