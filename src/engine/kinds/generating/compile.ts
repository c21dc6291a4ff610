/**
 * A GeneratingPolicy (or Namespaced) at a version Bylaw runs compiles to its own body
 * (cel/generating-policy: programs compiled once, never re-parsed at evaluation); the policy holds
 * no kyverno-shaped rules. The document passes its CRD's schema first (policy/schema/: every problem
 * at its field path refuses it). Another version is not run (the unsupported placeholder).
 */
import { isObject, textOf, type JsonObject } from "../../api/json.js";
import { problem, warning, type PolicyProblem } from "../../api/problem.js";
import { sharedCel } from "../../cel/shared-cel.js";
import { compileGeneratingBody } from "../../cel/generating-policy/index.js";
import type { KindCompileOutcome } from "../../policy/compile-policy.js";
import { schemaProblems } from "../../policy/schema/check-schema.js";
import type { PolicyKindName } from "../types.js";
import { compileUnsupported } from "../unsupported/compile.js";
import { GENERATING_POLICY_VERSIONS } from "./kinds.js";
import { reportAnnotations } from "../../policy/report-annotations.js";

export function compileGeneratingKind(doc: JsonObject, kind: PolicyKindName): KindCompileOutcome {
  if (!GENERATING_POLICY_VERSIONS.has(textOf(doc["apiVersion"]))) return compileUnsupported(doc, kind);
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = textOf(metadata["name"]);
  if (name === "") return { ok: false, problems: [problem("metadata.name", "metadata.name is required")] };
  const invalid = schemaProblems(doc) ?? [];
  if (invalid.length > 0) return { ok: false, problems: invalid };
  if (!isObject(doc["spec"])) return { ok: false, problems: [problem("spec", `${kind} ${name}: spec is required`)] };
  const spec = doc["spec"];
  if (!Array.isArray(spec["generate"]) || spec["generate"].length === 0)
    return {
      ok: false,
      problems: [problem("spec.generate", `${kind} ${name}: spec.generate is required: list what to generate`)],
    };
  const namespaced = kind === "NamespacedGeneratingPolicy";
  const body = compileGeneratingBody(spec, name, sharedCel(namespaced ? "namespaced-generating" : "generating"));
  if (!body.ok) return body;
  const annotations = isObject(metadata["annotations"]) ? metadata["annotations"] : {};
  return {
    ok: true,
    policy: {
      language: "generating",
      document: doc,
      kind,
      name,
      // A namespaced policy applies to its own namespace only (the API server defaults it to "default").
      namespace: namespaced ? textOf(metadata["namespace"]) || "default" : "",
      generating: body.compiled,
      background: true,
      scored: annotations["policies.kyverno.io/scored"] !== "false",
      ...reportAnnotations(metadata),
      warnings: updateDeletesWarnings(spec, body.compiled.synchronize),
    },
  };
}

/**
 * A synchronized policy whose resourceRules leave UPDATE out: Kyverno's controller evaluates every
 * update of a trigger (its webhook registers all operations) and, finding it unmatched, deletes
 * what the trigger generated. Bylaw does the same; the warning says so at `kubectl apply`.
 */
function updateDeletesWarnings(spec: JsonObject, synchronize: boolean): PolicyProblem[] {
  if (!synchronize) return [];
  const constraints = isObject(spec["matchConstraints"]) ? spec["matchConstraints"] : {};
  const rules = Array.isArray(constraints["resourceRules"]) ? constraints["resourceRules"].filter(isObject) : [];
  const i = rules.findIndex((r) => {
    const ops = Array.isArray(r["operations"]) ? r["operations"] : [];
    return !ops.includes("UPDATE") && !ops.includes("*");
  });
  if (i < 0) return [];
  return [
    warning(
      `spec.matchConstraints.resourceRules[${i}].operations`,
      "synchronize is enabled and UPDATE is not among the operations: an update of a trigger no longer matches the policy, so what it generated is deleted (as Kyverno does); add UPDATE to keep it",
    ),
  ];
}
