/**
 * `{{ }}` substitution in one string, pass by pass as Kyverno does it:
 * - every variable found in a pass is evaluated, left to right (the first failure is the error);
 * - a string that is exactly one variable takes the variable's value, typed (number, map, null…),
 *   and is not scanned again;
 * - otherwise each variable is replaced by its value, strings as they are and anything else as
 *   JSON text; `{{- … }}` (shallow) escapes any `{{` in its value;
 * - the result is scanned again, so nested `{{ a.{{ b }} }}` resolve innermost first;
 * - finally the backslash of each escaped `\{{ … }}` is removed.
 */
import type { JsonValue } from "../api/json.js";
import { err, ok, type Result } from "../api/result.js";
import { goJson } from "../go/json-encode.js";
import { resolveVariable, SUBSTITUTION_ERROR } from "./resolve-variable.js";
import { escapeVariables, scanVariables, unescapeVariables } from "./scanner.js";
import type { SubstitutionScope, VariableMatch } from "./types.js";

/** Kyverno loops for ever on a value that expands into itself; we stop after this many passes. */
export const MAX_PASSES = 100;
/**
 * The longest string one substitution may build (2 Mi characters, Kyverno's context size limit):
 * policy content is tenant input in the webhook, and `"{{ p }}{{ p }}"` doubles with every use.
 */
const MAX_SUBSTITUTED_LENGTH = 2 * 1024 * 1024;

function render(value: JsonValue, shallow: boolean): string {
  const text = typeof value === "string" ? value : goJson(value);
  return shallow ? escapeVariables(text) : text;
}

function splice(text: string, matches: readonly VariableMatch[], values: readonly string[]): string {
  let out = "";
  let last = 0;
  matches.forEach((m, i) => {
    out += text.slice(last, m.start) + (values[i] ?? "");
    last = m.end;
  });
  return out + text.slice(last);
}

/** Substitutes the variables of `text`, a string found at Kyverno path `path`. */
export function substituteText(text: string, path: string, scope: SubstitutionScope): Result<JsonValue> {
  if (!text.includes("{{")) return ok(text);
  const template = scope.cache.template(text);
  if (template.literal) return ok(text);
  if (template.variable !== undefined) return template.variable.resolve(path, scope);
  let value = text;
  let matches = template.matches;
  for (let pass = 1; matches.length > 0; pass++) {
    if (pass > MAX_PASSES) {
      return err(
        SUBSTITUTION_ERROR,
        `failed to resolve ${matches[0]?.expression ?? ""} at path ${path}: variables still unresolved after ${MAX_PASSES} passes (a value expands into itself)`,
        path,
      );
    }
    const first = matches[0];
    if (first !== undefined && matches.length === 1 && first.start === 0 && first.end === value.length) {
      return resolveVariable(first.expression, path, scope);
    }
    const rendered: string[] = [];
    let length = value.length;
    for (const m of matches) {
      const r = resolveVariable(m.expression, path, scope);
      if (!r.ok) return r;
      const text = render(r.value, m.shallow);
      length += text.length;
      if (length > MAX_SUBSTITUTED_LENGTH) {
        return err(
          SUBSTITUTION_ERROR,
          `failed to substitute variables at path ${path}: the result would be longer than ${MAX_SUBSTITUTED_LENGTH} characters (2 Mi, Kyverno's context size limit)`,
          path,
        );
      }
      rendered.push(text);
    }
    value = splice(value, matches, rendered);
    matches = scanVariables(value);
  }
  return ok(unescapeVariables(value));
}
