/** Tell a kyverno.io PolicyException document from CEL exceptions (policies.kyverno.io) and other objects. */
import { isObject, type JsonValue } from "../api/json.js";

type ExceptionDocumentKind = "kyverno" | "cel" | "other";

/** Which kind of PolicyException document this is ("other" for anything else). */
export function isPolicyExceptionDocument(doc: JsonValue | undefined): ExceptionDocumentKind {
  if (!isObject(doc) || doc["kind"] !== "PolicyException") return "other";
  const apiVersion = typeof doc["apiVersion"] === "string" ? doc["apiVersion"] : "";
  if (apiVersion.startsWith("policies.kyverno.io/")) return "cel";
  return "kyverno";
}
