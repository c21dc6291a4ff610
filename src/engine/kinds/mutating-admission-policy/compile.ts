/**
 * A MutatingAdmissionPolicy at a version Kyverno's CLI reads (v1alpha1, v1beta1, v1) compiles with the
 * bindings that name it (cel/mutating-admission-policy/) to the `mutating` variant, its programs in
 * `mutatingAdmission` (no rules, no MutatingPolicy bodies). Another version is not run.
 */
import { textOf, type JsonObject } from "../../api/json.js";
import { MUTATING_ADMISSION_API_VERSIONS } from "../../cel/admission-policy/index.js";
import { compileMutatingAdmissionPolicy } from "../../cel/mutating-admission-policy/index.js";
import type { KindCompileOutcome } from "../../policy/compile-policy.js";
import { compileUnsupported } from "../unsupported/compile.js";
import { reportAnnotations } from "../../policy/report-annotations.js";

export function compileMutatingAdmissionKind(doc: JsonObject, bindings: readonly JsonObject[]): KindCompileOutcome {
  if (!MUTATING_ADMISSION_API_VERSIONS.has(textOf(doc["apiVersion"])))
    return compileUnsupported(doc, "MutatingAdmissionPolicy");
  const compiled = compileMutatingAdmissionPolicy(doc, bindings);
  if (!compiled.ok) return compiled;
  return {
    ok: true,
    policy: {
      language: "mutating",
      document: doc,
      kind: "MutatingAdmissionPolicy",
      name: compiled.value.policyName,
      namespace: "",
      mutating: [],
      mutatingAdmission: compiled.value,
      background: true,
      scored: true,
      ...reportAnnotations(doc["metadata"]),
      warnings: [],
    },
  };
}
