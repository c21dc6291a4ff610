/** A kind Bylaw does not run compiles to its placeholder (policy/unsupported-kind.ts): an error for every resource. */
import type { JsonObject } from "../../api/json.js";
import type { CompileEnv, KindCompileOutcome } from "../../policy/compile-policy.js";
import { compileUnsupportedKind } from "../../policy/unsupported-kind.js";
import type { PolicyKindName } from "../types.js";

export function compileUnsupported(doc: JsonObject, kind: PolicyKindName, env: CompileEnv): KindCompileOutcome {
  return compileUnsupportedKind(doc, `${text(doc["apiVersion"])} ${text(doc["kind"])}`, kind, env);
}

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}
