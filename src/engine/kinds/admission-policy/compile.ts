/**
 * A ValidatingAdmissionPolicy compiles with the bindings that name it (policy/admission-policy.ts);
 * at an apiVersion Bylaw does not know, it is not run. A binding alone is no policy.
 */
import { isObject, textOf, type JsonObject, type JsonValue } from "../../api/json.js";
import { problem } from "../../api/problem.js";
import { ADMISSION_API_VERSIONS, isAdmissionBindingDocument } from "../../cel/admission-policy/index.js";
import type { CompileEnv, KindCompileOutcome } from "../../policy/compile-policy.js";
import { compileAdmissionPolicy } from "../../policy/admission-policy.js";
import { compileUnsupported } from "../unsupported/compile.js";

export function compileAdmissionPolicyKind(
  doc: JsonObject,
  env: CompileEnv,
  bindings: readonly JsonObject[],
): KindCompileOutcome {
  return ADMISSION_API_VERSIONS.has(textOf(doc["apiVersion"]))
    ? compileAdmissionPolicy(doc, bindings, env)
    : compileUnsupported(doc, "ValidatingAdmissionPolicy");
}

/** A Validating- or MutatingAdmissionPolicyBinding is refused as a policy; one at another apiVersion is not run. */
export function compileBindingDocument(
  doc: JsonValue,
  of: "ValidatingAdmissionPolicy" | "MutatingAdmissionPolicy",
): KindCompileOutcome {
  if (isAdmissionBindingDocument(doc))
    return {
      ok: false,
      problems: [
        problem(
          "kind",
          `a ${of}Binding is not a policy: it binds the ${of} its spec.policyName names; load it together with that policy`,
        ),
      ],
    };
  return isObject(doc)
    ? compileUnsupported(doc, of)
    : { ok: false, problems: [problem("", "a policy must be a mapping")] };
}
