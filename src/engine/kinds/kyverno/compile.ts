/** The kyverno.io kinds compile as they always have (policy/compile-policy.ts); this folder only adapts them. */
import type { JsonValue } from "../../api/json.js";
import { compileKyvernoPolicy, type CompileEnv, type KindCompileOutcome } from "../../policy/compile-policy.js";

export function compileKyvernoKind(doc: JsonValue, env: CompileEnv): KindCompileOutcome {
  return compileKyvernoPolicy(doc, env);
}
