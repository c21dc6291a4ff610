/**
 * A MutatingPolicy (or Namespaced) at a version Bylaw runs compiles to its own body: the compiled
 * programs of its spec and autogen copies (cel/mutating-policy/), no rules, once the document
 * passes its CRD's schema (policy/schema/: every problem at its field path refuses it). Another
 * version is not run.
 */
import { isObject, textOf, type JsonObject } from "../../api/json.js";
import { problem } from "../../api/problem.js";
import { compileMutatingBodies } from "../../cel/mutating-policy/compile.js";
import type { KindCompileOutcome } from "../../policy/compile-policy.js";
import { schemaProblems } from "../../policy/schema/check-schema.js";
import type { PolicyKindName } from "../types.js";
import { compileUnsupported } from "../unsupported/compile.js";
import { MUTATING_POLICY_VERSIONS } from "./kinds.js";
import { reportAnnotations } from "../../policy/report-annotations.js";

export function compileMutatingKind(doc: JsonObject, kind: PolicyKindName): KindCompileOutcome {
  if (!MUTATING_POLICY_VERSIONS.has(textOf(doc["apiVersion"]))) return compileUnsupported(doc, kind);
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const name = str(metadata["name"]);
  const namespaced = kind === "NamespacedMutatingPolicy";
  if (name === "") return { ok: false, problems: [problem("metadata.name", "metadata.name is required")] };
  const invalid = schemaProblems(doc) ?? [];
  if (invalid.length > 0) return { ok: false, problems: invalid };
  if (!isObject(doc["spec"])) return { ok: false, problems: [problem("spec", `${kind} ${name}: spec is required`)] };
  const spec = doc["spec"];
  const compiled = compileMutatingBodies(spec, name, namespaced ? "namespaced" : "cluster");
  if (!compiled.ok) return compiled;
  const evaluation = isObject(spec["evaluation"]) ? spec["evaluation"] : {};
  const annotations = isObject(metadata["annotations"]) ? metadata["annotations"] : {};
  return {
    ok: true,
    policy: {
      language: "mutating",
      document: doc,
      kind,
      name,
      namespace: namespaced ? str(metadata["namespace"]) || "default" : "",
      mutating: compiled.bodies,
      background: isObject(evaluation["background"]) ? evaluation["background"]["enabled"] !== false : true,
      scored: annotations["policies.kyverno.io/scored"] !== "false",
      ...reportAnnotations(metadata),
      warnings: [],
    },
  };
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}
