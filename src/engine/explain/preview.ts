/** Values as an explanation shows them: JSON text, cut so one huge object cannot flood the output. */
import type { JsonValue } from "../api/json.js";
import type { ValuePreview } from "./types.js";

/** How much of a value's JSON text an explanation keeps. */
const VALUE_PREVIEW_CHARS = 160;

export function preview(value: JsonValue | undefined): ValuePreview {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value);
  if (text.length <= VALUE_PREVIEW_CHARS) return text;
  return `${text.slice(0, VALUE_PREVIEW_CHARS)}… (${text.length} characters)`;
}
