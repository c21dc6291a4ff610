/**
 * Turn one loaded document into a PolicyDocument, reporting structural problems with field paths.
 * Only kyverno.io ClusterPolicy/Policy are handled here; other kinds are recognised by `policyKindOf`.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { PolicyDocument } from "../api/policy.js";
import { problem, type PolicyProblem } from "./problem.js";

export const KYVERNO_POLICY_API_VERSIONS = ["kyverno.io/v1", "kyverno.io/v2beta1"] as const;

export type DocumentKind =
  | { kind: "kyverno-policy" }
  | { kind: "other-policy"; name: string }
  | { kind: "not-a-policy"; reason: string };

const CEL_KINDS = new Set([
  "ValidatingPolicy", "NamespacedValidatingPolicy", "MutatingPolicy", "NamespacedMutatingPolicy",
  "GeneratingPolicy", "NamespacedGeneratingPolicy", "DeletingPolicy", "NamespacedDeletingPolicy",
  "ImageValidatingPolicy", "NamespacedImageValidatingPolicy", "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding",
  "CleanupPolicy", "ClusterCleanupPolicy", "PolicyException",
]);

/** Classify a document: a kyverno.io ClusterPolicy/Policy, another policy kind Bylaw does not run yet, or not a policy. */
export function policyKindOf(doc: JsonValue): DocumentKind {
  if (!isObject(doc)) return { kind: "not-a-policy", reason: "document is not a mapping" };
  const kind = typeof doc["kind"] === "string" ? doc["kind"] : "";
  const apiVersion = typeof doc["apiVersion"] === "string" ? doc["apiVersion"] : "";
  if ((kind === "ClusterPolicy" || kind === "Policy") && apiVersion.startsWith("kyverno.io/")) {
    return { kind: "kyverno-policy" };
  }
  if (CEL_KINDS.has(kind)) return { kind: "other-policy", name: `${apiVersion} ${kind}` };
  return { kind: "not-a-policy", reason: `kind ${JSON.stringify(kind || "(none)")} with apiVersion ${JSON.stringify(apiVersion || "(none)")} is not a Kyverno policy` };
}

/** Structural parse: required fields and their types. Semantic checks live in check-policy.ts. */
export function parsePolicy(doc: JsonValue): { policy?: PolicyDocument; problems: PolicyProblem[] } {
  const problems: PolicyProblem[] = [];
  if (!isObject(doc)) return { problems: [problem("", "a policy must be a mapping")] };
  const apiVersion = doc["apiVersion"];
  if (typeof apiVersion !== "string" || !(KYVERNO_POLICY_API_VERSIONS as readonly string[]).includes(apiVersion)) {
    problems.push(problem("apiVersion", `unsupported apiVersion ${JSON.stringify(apiVersion ?? null)}; use one of ${KYVERNO_POLICY_API_VERSIONS.join(", ")}`));
  }
  const kind = doc["kind"];
  if (kind !== "ClusterPolicy" && kind !== "Policy") {
    problems.push(problem("kind", `kind must be ClusterPolicy or Policy, got ${JSON.stringify(kind ?? null)}`));
  }
  const metadata = doc["metadata"];
  if (!isObject(metadata)) {
    problems.push(problem("metadata", "metadata is required"));
  } else {
    const name = metadata["name"];
    if (typeof name !== "string" || name === "") problems.push(problem("metadata.name", "metadata.name is required"));
    checkStringMap(metadata, "annotations", "metadata.annotations", problems);
    checkStringMap(metadata, "labels", "metadata.labels", problems);
  }
  const spec = doc["spec"];
  if (!isObject(spec)) {
    problems.push(problem("spec", "spec is required and must be a mapping"));
  } else {
    const rules = spec["rules"];
    if (rules !== undefined && !Array.isArray(rules)) problems.push(problem("spec.rules", "spec.rules must be a list"));
    if (Array.isArray(rules)) {
      rules.forEach((r, i) => {
        if (!isObject(r)) problems.push(problem(`spec.rules[${i}]`, "a rule must be a mapping"));
        else if (typeof r["name"] !== "string" || r["name"] === "") problems.push(problem(`spec.rules[${i}].name`, "rule name is required"));
      });
    }
    for (const b of ["background", "admission", "emitWarning", "useServerSideApply"]) {
      if (spec[b] !== undefined && typeof spec[b] !== "boolean") problems.push(problem(`spec.${b}`, `spec.${b} must be true or false`));
    }
  }
  if (problems.length > 0) return { problems };
  return { policy: doc as unknown as PolicyDocument, problems };
}

function checkStringMap(obj: JsonObject, key: string, path: string, problems: PolicyProblem[]): void {
  const v = obj[key];
  if (v === undefined || v === null) return;
  if (!isObject(v)) {
    problems.push(problem(path, `${path} must be a mapping of strings`));
    return;
  }
  for (const [k, val] of Object.entries(v)) {
    if (typeof val !== "string") problems.push(problem(`${path}.${k}`, `${path}.${k} must be a string, got ${JSON.stringify(val)}`));
  }
}
