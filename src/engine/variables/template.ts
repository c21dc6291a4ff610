/** A string scanned once for `{{ }}` variables (its first pass), kept so evaluation never re-scans it. */
import { scanVariables } from "./scanner.js";
import type { Template } from "./types.js";

export function compileTemplate(text: string): Template {
  const matches = scanVariables(text);
  return { source: text, matches, literal: matches.length === 0 && !text.includes("\\{{") };
}
