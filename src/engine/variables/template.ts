/** A string scanned once for `{{ }}` variables (its first pass), kept so evaluation never re-scans it. */
import { scanVariables } from "./scanner.js";
import type { Template } from "./types.js";
import { WholeVariable } from "./whole-variable.js";

export function compileTemplate(text: string): Template {
  const matches = scanVariables(text);
  const only = matches.length === 1 ? matches[0] : undefined;
  const literal = matches.length === 0 && !text.includes("\\{{");
  const references = text.includes("$(");
  if (only === undefined || only.start !== 0 || only.end !== text.length)
    return { source: text, matches, literal, references };
  const whole = only.expression;
  return whole === "@"
    ? { source: text, matches, literal, references, whole }
    : { source: text, matches, literal, references, whole, variable: new WholeVariable(whole) };
}
