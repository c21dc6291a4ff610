/**
 * ValidatingPolicy and NamespacedValidatingPolicy (policies.kyverno.io v1alpha1, v1beta1, v1) → the shared compiled-policy model
 * (ADR 0005): its own document, and its `validating` body: one program per spec (its own, then the
 * autogen copies), each with the matcher of its matchConstraints and the compiled matchConditions,
 * variables, validations and auditAnnotations; its results are named "" (Kyverno's results for the
 * CEL kinds name no rule). validationActions Deny → Enforce, otherwise Audit
 * (Audit and Warn do not block). Every expression compiles here, never at evaluation; one that does
 * not compile makes every matched resource an `error` naming the policy, the field and the
 * position. The document is checked against its kind's CRD schema first (policy/schema/): a field
 * the CRD does not declare, a wrong type or a missing required field makes the policy invalid,
 * each problem at its field path (the API server refuses such a policy; Kyverno's CLI skips it):
 * notably paramKind/paramRef, which ValidatingAdmissionPolicy has but Kyverno 1.19's
 * ValidatingPolicy does not (its CRD declares neither, and its CEL environment has no `params`). A policy with `evaluation.mode: JSON` matches no Kubernetes request; it runs on JSON
 * payloads only (engine.validateJson); one with `evaluation.mode: HTTP` (`Envoy`) compiles in kyverno-authz's HTTP
 * (Envoy) environment and runs on HTTP requests (Envoy checks) only (engine.validateAuthz).
 */
import { isObject, type JsonObject } from "../api/json.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import { isUndeclaredField, schemaProblems } from "./schema/check-schema.js";
import type { CompileEnv, KindCompileOutcome } from "./compile-policy.js";
import type { UnsourcedPolicy } from "./compiled-policy.js";
import { createCel } from "../cel/create-cel.js";
import { sharedCel } from "../cel/shared-cel.js";
import { compileBodies, VALIDATING_POLICY_RULE } from "../cel/validating-policy/index.js";
import { verdictMatcher } from "../match/index.js";
import { reportAnnotations } from "./report-annotations.js";

function text(o: JsonObject, key: string): string | undefined {
  const v = o[key];
  return typeof v === "string" ? v : undefined;
}

/** paramKind/paramRef, which a ValidatingAdmissionPolicy has, get the reason they are not declared rather than a near name. */
function withParamHint(p: PolicyProblem): PolicyProblem {
  if ((p.path !== "spec.paramKind" && p.path !== "spec.paramRef") || !isUndeclaredField(p)) return p;
  return problem(
    p.path,
    "field not declared in schema; Kyverno 1.19's ValidatingPolicy has no parameter resources (a ValidatingAdmissionPolicy with a binding has)",
  );
}

export function compileValidatingPolicy(doc: JsonObject, env: CompileEnv): KindCompileOutcome {
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = text(metadata, "name") ?? "";
  // A NamespacedValidatingPolicy applies to its own namespace only (the API server defaults it to "default").
  const namespaced = doc["kind"] === "NamespacedValidatingPolicy";
  const namespace = namespaced ? text(metadata, "namespace") || "default" : "";
  if (name === "") return { ok: false, problems: [problem("metadata.name", "metadata.name is required")] };
  const invalid = (schemaProblems(doc) ?? []).map(withParamHint);
  if (invalid.length > 0) return { ok: false, problems: invalid };
  if (!isObject(doc["spec"]))
    return { ok: false, problems: [problem("spec", `ValidatingPolicy ${name}: spec is required`)] };
  const spec = doc["spec"];
  const actions = spec["validationActions"];
  if (
    actions !== undefined &&
    (!Array.isArray(actions) || actions.some((a) => a !== "Deny" && a !== "Audit" && a !== "Warn"))
  ) {
    return {
      ok: false,
      problems: [
        problem(
          "spec.validationActions",
          `ValidatingPolicy ${name}: spec.validationActions holds only Deny, Audit and Warn`,
        ),
      ],
    };
  }
  if (spec["failurePolicy"] !== undefined && spec["failurePolicy"] !== "Ignore" && spec["failurePolicy"] !== "Fail") {
    return {
      ok: false,
      problems: [problem("spec.failurePolicy", `ValidatingPolicy ${name}: spec.failurePolicy must be Fail or Ignore`)],
    };
  }
  // Kyverno's loader sends only a (cluster-wide) ValidatingPolicy to its HTTP and Envoy processor.
  const mode = isObject(spec["evaluation"]) ? spec["evaluation"]["mode"] : undefined;
  const authzMode = !namespaced && (mode === "HTTP" || mode === "Envoy") ? mode : undefined;
  const compiled = compileBodies(
    spec,
    name,
    authzMode !== undefined
      ? (env.celAuthz?.(authzMode) ?? sharedCel(authzMode === "HTTP" ? "http-authz" : "envoy-authz"))
      : (env.celPolicies?.(namespaced) ?? createCel({ kyverno: namespaced ? "namespaced" : "cluster" })),
  );
  if (!compiled.ok) return compiled;
  const bodies = compiled.bodies;
  const action = !Array.isArray(actions) || actions.includes("Deny") ? ("Enforce" as const) : ("Audit" as const);
  const evaluation = evaluationOf(spec);
  const background = isObject(evaluation["background"]) ? evaluation["background"]["enabled"] !== false : true;
  const policy: UnsourcedPolicy = {
    language: "cel",
    document: doc,
    kind: namespaced ? "NamespacedValidatingPolicy" : "ValidatingPolicy",
    name,
    namespace,
    validating: {
      programs: bodies.map((b) => ({
        resultName: VALIDATING_POLICY_RULE,
        matcher: verdictMatcher((req) => b.compiled.constraints.decide(req), "spec.matchConstraints"),
        program: b.compiled,
        failure: b.failure,
      })),
      action,
    },
    background,
    scored: annotation(metadata, "policies.kyverno.io/scored") !== "false",
    ...reportAnnotations(metadata),
    warnings: [],
  };
  return { ok: true, policy };
}

function evaluationOf(spec: JsonObject): JsonObject {
  return isObject(spec["evaluation"]) ? spec["evaluation"] : {};
}

function annotation(metadata: JsonObject, key: string): string | undefined {
  const a = metadata["annotations"];
  return isObject(a) && typeof a[key] === "string" ? a[key] : undefined;
}
