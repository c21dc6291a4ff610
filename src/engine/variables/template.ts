/** A string scanned once for `{{ }}` variables (its first pass and its nesting), kept so evaluation never re-scans it. */
import { scanVariables } from "./scanner.js";
import { parseTemplateTree } from "./template-tree.js";
import type { Template } from "./types.js";
import { WholeVariable } from "./whole-variable.js";

/** The deepest nesting of variables in one string that is followed; deeper is an error (policy text is tenant input in the webhook). */
export const MAX_PASSES = 100;

export function compileTemplate(text: string): Template {
  const matches = scanVariables(text);
  const only = matches.length === 1 ? matches[0] : undefined;
  const literal = matches.length === 0 && !text.includes("\\{{");
  const references = text.includes("$(");
  if (only === undefined || only.start !== 0 || only.end !== text.length)
    return literal
      ? { source: text, matches, literal, references }
      : { source: text, matches, literal, references, tree: parseTemplateTree(text, MAX_PASSES) };
  const whole = only.expression;
  return whole === "@"
    ? { source: text, matches, literal, references, whole, tree: parseTemplateTree(text, MAX_PASSES) }
    : { source: text, matches, literal, references, whole, variable: new WholeVariable(whole) };
}
