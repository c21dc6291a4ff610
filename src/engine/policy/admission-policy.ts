/**
 * Kubernetes ValidatingAdmissionPolicy (admissionregistration.k8s.io v1, v1beta1) and the
 * ValidatingAdmissionPolicyBindings that name it → the shared compiled-policy model (ADR 0005), as
 * Kyverno's CLI evaluates them (pkg/admissionpolicy; cel/admission-policy/evaluate.ts): a `validating`
 * body of one program, whose results are named after the policy (Kyverno's VAP results carry the
 * policy's name as the rule's), that holds every binding in the order given and gives one result per resource. It matches where the
 * policy's matchConstraints do when no binding names it (Kyverno's CLI evaluates such a policy; the
 * API server would not), else where any binding's matchResources do. Its action is Enforce when no
 * binding names it or one holds Deny, else Audit; each result carries its binding's. The policy's
 * fields compile as a ValidatingPolicy's (cel/validating-policy/compile-body.ts), in Kubernetes'
 * CEL environment (not Kyverno's libraries); an expression that does not compile makes every matched
 * resource an error naming the policy, the field and the position. An invalid binding or policy
 * field fails the load.
 */
import { isObject, type JsonObject, type JsonValue, textOf } from "../api/json.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import { createCel } from "../cel/create-cel.js";
import { compileBody } from "../cel/validating-policy/compile-body.js";
import { compileBinding, type CompiledAdmissionPolicy, type CompiledBinding } from "../cel/admission-policy/index.js";
import type { ParamKindRef } from "../cel/params/index.js";
import type { CompileEnv, KindCompileOutcome } from "./compile-policy.js";
import type { UnsourcedPolicy } from "./compiled-policy.js";
import { verdictMatcher } from "../match/index.js";
import { reportAnnotations } from "./report-annotations.js";

const MATCHED = { kind: "match" } as const;
const NOT_MATCHED = { kind: "no-match" } as const;

const KIND = "ValidatingAdmissionPolicy";
const REASONS: ReadonlySet<string> = new Set(["Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge"]);

function text(o: JsonObject, key: string): string {
  const v = o[key];
  return typeof v === "string" ? v : "";
}

export function compileAdmissionPolicy(
  doc: JsonObject,
  bindingDocs: readonly JsonValue[],
  env: CompileEnv,
): KindCompileOutcome {
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = text(metadata, "name");
  if (name === "") return { ok: false, problems: [problem("metadata.name", "metadata.name is required")] };
  if (!isObject(doc["spec"])) return { ok: false, problems: [problem("spec", `${KIND} ${name}: spec is required`)] };
  const spec = doc["spec"];
  const problems: PolicyProblem[] = [];
  const fp = spec["failurePolicy"];
  if (fp !== undefined && fp !== null && fp !== "Fail" && fp !== "Ignore")
    problems.push(problem("spec.failurePolicy", `${KIND} ${name}: spec.failurePolicy must be Fail or Ignore`));
  const paramKind = paramKindOf(spec["paramKind"], name, problems);
  (Array.isArray(spec["validations"]) ? spec["validations"] : []).forEach((v, i) => {
    const reason = isObject(v) ? v["reason"] : undefined;
    if (reason !== undefined && reason !== null && !REASONS.has(textOf(reason)))
      problems.push(
        problem(
          `spec.validations[${i}].reason`,
          `${KIND} ${name}: spec.validations[${i}].reason: Unsupported value: ${JSON.stringify(reason)}: supported values: "Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"`,
        ),
      );
  });
  const bindings: CompiledBinding[] = [];
  for (const b of bindingDocs) {
    if (!isObject(b) || b["kind"] !== "ValidatingAdmissionPolicyBinding") continue;
    const compiled = compileBinding(b);
    if (!compiled.ok) problems.push(...compiled.problems);
    else if (compiled.value.policyName === name) bindings.push(compiled.value.binding);
  }
  if (problems.length > 0) return { ok: false, problems };
  const body = compileBody(spec, name, env.cel?.() ?? createCel(), "", KIND);
  if (!body.ok) return body;
  const cel: CompiledAdmissionPolicy = {
    kind: "admission-policy",
    policyName: name,
    body: body.compiled,
    paramKind,
    bindings,
  };
  const action =
    bindings.length === 0 || bindings.some((b) => b.actions.includes("Deny"))
      ? ("Enforce" as const)
      : ("Audit" as const);
  const matcher =
    bindings.length === 0
      ? verdictMatcher((req) => body.compiled.constraints.decide(req), "spec.matchConstraints")
      : verdictMatcher(
          (req) => (bindings.some((b) => b.constraints?.decide(req).kind !== "no-match") ? MATCHED : NOT_MATCHED),
          "a binding's matchResources",
        );
  const policy: UnsourcedPolicy = {
    language: "cel",
    document: doc,
    kind: "ValidatingAdmissionPolicy",
    name,
    namespace: "",
    // Its results carry the policy's own name, as a Kubernetes admission policy's do.
    validating: { programs: [{ resultName: name, matcher, program: cel, failure: body.failure }], action },
    background: true,
    scored: true,
    ...reportAnnotations(metadata),
    warnings: [],
  };
  return { ok: true, policy };
}

function paramKindOf(v: JsonValue | undefined, name: string, problems: PolicyProblem[]): ParamKindRef | undefined {
  if (v === undefined || v === null) return undefined;
  const apiVersion = isObject(v) ? text(v, "apiVersion") : "";
  const kind = isObject(v) ? text(v, "kind") : "";
  if (apiVersion === "" || kind === "") {
    problems.push(problem("spec.paramKind", `${KIND} ${name}: spec.paramKind needs apiVersion and kind`));
    return undefined;
  }
  return { apiVersion, kind };
}
