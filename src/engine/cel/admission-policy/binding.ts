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
import { needsLabels } from "../../match/namespace-labels.js";
import { compileConstraints } from "../validating-policy/match-constraints.js";
import { compileParamRef } from "../params/index.js";
import type { CompiledBinding, ValidationAction } from "./compiled.js";

export const ADMISSION_API_VERSIONS: ReadonlySet<string> = new Set([
  "admissionregistration.k8s.io/v1",
  "admissionregistration.k8s.io/v1beta1",
]);

const ACTIONS: ReadonlySet<string> = new Set(["Deny", "Warn", "Audit"]);

interface BoundBinding {
  readonly policyName: string;
  readonly binding: CompiledBinding;
}

type BindingOutcome = { ok: true; value: BoundBinding } | { ok: false; problems: PolicyProblem[] };

/** Whether a document is a ValidatingAdmissionPolicyBinding of an apiVersion Bylaw reads. */
export function isAdmissionBindingDocument(doc: JsonValue): doc is JsonObject {
  return (
    isObject(doc) &&
    doc["kind"] === "ValidatingAdmissionPolicyBinding" &&
    ADMISSION_API_VERSIONS.has(textOf(doc["apiVersion"]))
  );
}

function text(o: JsonObject, key: string): string {
  const v = o[key];
  return typeof v === "string" ? v : "";
}

export function compileBinding(doc: JsonObject): BindingOutcome {
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = text(metadata, "name");
  if (name === "")
    return {
      ok: false,
      problems: [problem("metadata.name", "ValidatingAdmissionPolicyBinding: metadata.name is required")],
    };
  const what = `ValidatingAdmissionPolicyBinding ${name}`;
  const spec = isObject(doc["spec"]) ? doc["spec"] : undefined;
  if (spec === undefined) return { ok: false, problems: [problem("spec", `${what}: spec is required`)] };
  const problems: PolicyProblem[] = [];
  // No policyName: the binding names no policy, so it binds none (Kyverno's CLI pairs by name).
  const policyName = text(spec, "policyName");
  const actions = actionsOf(spec["validationActions"], what, problems);
  let constraints: CompiledBinding["constraints"];
  if (spec["matchResources"] !== undefined && spec["matchResources"] !== null) {
    const c = compileConstraints(spec, what, { field: "spec.matchResources", rulesRequired: false });
    if (c.ok) constraints = c.value;
    else problems.push(...c.problems);
  }
  const paramRef = compileParamRef(spec["paramRef"], what, problems);
  if (problems.length > 0) return { ok: false, problems };
  const mr = spec["matchResources"];
  const readsNamespaceLabels = isObject(mr) && needsLabels(mr["namespaceSelector"]);
  return { ok: true, value: { policyName, binding: { name, constraints, paramRef, actions, readsNamespaceLabels } } };
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
