/** A kind Bylaw does not run compiles to its placeholder (policy/unsupported-kind.ts): an error for every resource. */
import type { JsonObject } from "../../api/json.js";
import type { KindCompileOutcome } from "../../policy/compile-policy.js";
import { compileUnsupportedKind } from "../../policy/unsupported-kind.js";
import type { PolicyKindName } from "../types.js";

export function compileUnsupported(doc: JsonObject, kind: PolicyKindName): KindCompileOutcome {
  return compileUnsupportedKind(doc, `${text(doc["apiVersion"])} ${text(doc["kind"])}`, kind);
}

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}
