/** How JSON values are named in patch messages. */
import type { JsonValue } from "../../api/json.js";

export function jsonTypeName(v: JsonValue | undefined): string {
  if (v === undefined) return "missing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object") return "an object";
  return `a ${typeof v}`;
}

/** Compact JSON text for a message, cut short when long. */
export function preview(v: JsonValue | undefined, max = 80): string {
  if (v === undefined) return "missing";
  const text = JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}
