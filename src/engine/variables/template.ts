/** A string scanned once for `{{ }}` variables (its first pass), kept so evaluation never re-scans it. */
import { scanVariables } from "./scanner.js";
import type { Template } from "./types.js";

export function compileTemplate(text: string): Template {
  const matches = scanVariables(text);
  const only = matches.length === 1 ? matches[0] : undefined;
  const literal = matches.length === 0 && !text.includes("\\{{");
  return only !== undefined && only.start === 0 && only.end === text.length ? { source: text, matches, literal, whole: only.expression } : { source: text, matches, literal };
}
