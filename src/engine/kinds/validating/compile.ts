/** A ValidatingPolicy (or Namespaced) at a version Bylaw runs compiles to its CEL programs; another version is not run. */
import { textOf, type JsonObject } from "../../api/json.js";
import type { CompileEnv, KindCompileOutcome } from "../../policy/compile-policy.js";
import { compileValidatingPolicy } from "../../policy/validating-policy.js";
import { compileUnsupported } from "../unsupported/compile.js";
import { VALIDATING_POLICY_VERSIONS } from "./kinds.js";
import type { PolicyKindName } from "../types.js";

export function compileValidatingKind(doc: JsonObject, kind: PolicyKindName, env: CompileEnv): KindCompileOutcome {
  return VALIDATING_POLICY_VERSIONS.has(textOf(doc["apiVersion"]))
    ? compileValidatingPolicy(doc, env)
    : compileUnsupported(doc, kind);
}
