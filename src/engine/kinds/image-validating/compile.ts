/**
 * An ImageValidatingPolicy (or Namespaced) at a version Bylaw runs compiles to its own body
 * (compile-body.ts), no rules, once the document passes its CRD's schema (policy/schema/: every
 * problem at its field path refuses it). Another version is not run.
 */
import { isObject, textOf, type JsonObject } from "../../api/json.js";
import { problem } from "../../api/problem.js";
import type { KindCompileOutcome } from "../../policy/compile-policy.js";
import { schemaProblems } from "../../policy/schema/check-schema.js";
import type { PolicyKindName } from "../types.js";
import { compileUnsupported } from "../unsupported/compile.js";
import { compileImageValidatingBody } from "./compile-body.js";
import { IMAGE_VALIDATING_POLICY_VERSIONS } from "./kinds.js";
import { reportAnnotations } from "../../policy/report-annotations.js";

export function compileImageValidatingKind(doc: JsonObject, kind: PolicyKindName): KindCompileOutcome {
  if (!IMAGE_VALIDATING_POLICY_VERSIONS.has(textOf(doc["apiVersion"]))) return compileUnsupported(doc, kind);
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = typeof metadata["name"] === "string" ? metadata["name"] : "";
  const namespaced = kind === "NamespacedImageValidatingPolicy";
  if (name === "") return { ok: false, problems: [problem("metadata.name", "metadata.name is required")] };
  const invalid = schemaProblems(doc) ?? [];
  if (invalid.length > 0) return { ok: false, problems: invalid };
  if (!isObject(doc["spec"])) return { ok: false, problems: [problem("spec", `${kind} ${name}: spec is required`)] };
  const spec = doc["spec"];
  const compiled = compileImageValidatingBody(spec, `${kind} ${name}`, namespaced ? "namespaced" : "cluster");
  if (!compiled.ok) return compiled;
  const evaluation = isObject(spec["evaluation"]) ? spec["evaluation"] : {};
  const annotations = isObject(metadata["annotations"]) ? metadata["annotations"] : {};
  return {
    ok: true,
    policy: {
      language: "image-validating",
      document: doc,
      kind,
      name,
      namespace: namespaced ? textOf(metadata["namespace"] ?? "") || "default" : "",
      imageValidating: compiled.body,
      background: isObject(evaluation["background"]) ? evaluation["background"]["enabled"] !== false : true,
      scored: annotations["policies.kyverno.io/scored"] !== "false",
      ...reportAnnotations(metadata),
      warnings: [],
    },
  };
}
