/**
 * `{{ }}` substitution in one string. Only the policy's own text is a template: the variables and
 * their nesting are found once in it (template-tree.ts), and a value a variable gives is spliced in
 * as data, never scanned for `{{ }}` again (tenant-isolation.md). Within that, as Kyverno does it:
 * - the variables are evaluated pass by pass, innermost first, left to right (the first failure is
 *   the error); `{{ a.{{ b }} }}` evaluates `b`, then `a.<b's value>`;
 * - a string that is exactly one variable takes the variable's value, typed (number, map, null…);
 *   so does one that becomes exactly one variable because the variables before it gave "";
 * - otherwise each variable is replaced by its value, strings as they are and anything else as
 *   JSON text; `{{- … }}` (shallow) substitutes the same way (no value is expanded anyway);
 * - the backslash of each escaped `\{{ … }}` of the policy's text is removed.
 * Where Kyverno differs (it scans the result again after every pass, so `{{ … }}` inside a value
 * is evaluated, and a value's braces or trailing backslash can change what the text means):
 * test/conformance/known-gaps.tsv and substitute-string.test.ts.
 */
import type { JsonValue } from "../api/json.js";
import { err, ok, type Result } from "../api/result.js";
import { goJson } from "../go/json-encode.js";
import { resolveVariable, SUBSTITUTION_ERROR } from "./resolve-variable.js";
import { goTrimSpace } from "./scanner.js";
import { MAX_PASSES } from "./template.js";
import type { TemplatePiece, TemplateTree } from "./template-tree.js";
import type { SubstitutionScope } from "./types.js";

/**
 * The longest string one substitution may build (2 Mi characters, Kyverno's context size limit):
 * policy content is tenant input in the webhook, and `"{{ p }}{{ p }}"` doubles with every use.
 */
const MAX_SUBSTITUTED_LENGTH = 2 * 1024 * 1024;

function render(value: JsonValue): string {
  return typeof value === "string" ? value : goJson(value);
}

function tooLong(path: string): Result<never> {
  return err(
    SUBSTITUTION_ERROR,
    `failed to substitute variables at path ${path}: the result would be longer than ${MAX_SUBSTITUTED_LENGTH} characters (2 Mi, Kyverno's context size limit)`,
    path,
  );
}

/** The pieces' text, each variable's rendered value spliced in; undefined when it would be too long. */
function join(pieces: readonly TemplatePiece[], rendered: readonly (string | undefined)[]): string | undefined {
  let out = "";
  for (const p of pieces) {
    out += typeof p === "string" ? p : (rendered[p] ?? "");
    if (out.length > MAX_SUBSTITUTED_LENGTH) return undefined;
  }
  return out;
}

/** The variable's query: its inner text, without the shallow marker, trimmed (scanner.ts parseVariableText). */
function expressionOf(inner: string): string {
  return goTrimSpace(inner.startsWith("-") ? inner.slice(1) : inner);
}

/**
 * Kyverno's whole-string rule at a pass: the pass finds a single variable and the string it scans
 * is exactly that variable, every variable before it at the top having given "".
 */
function wholeAt(tree: TemplateTree, node: number, rendered: readonly (string | undefined)[]): boolean {
  if (!tree.top.includes(node)) return false;
  return tree.top.every((p) => p === node || (typeof p === "number" && rendered[p] === ""));
}

function evaluate(tree: TemplateTree, path: string, scope: SubstitutionScope): Result<JsonValue> {
  // Policy text nested deeper than the bound: an error before any work.
  if (tree.unresolved !== undefined)
    return err(
      SUBSTITUTION_ERROR,
      `failed to resolve ${tree.unresolved} at path ${path}: variables still unresolved after ${MAX_PASSES} passes (nested too deep)`,
      path,
    );
  const { nodes } = tree;
  const rendered: (string | undefined)[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    if (node === undefined) continue;
    const inner = join(node.inner, rendered);
    if (inner === undefined) return tooLong(path);
    const single = nodes[i - 1]?.pass !== node.pass && nodes[i + 1]?.pass !== node.pass;
    if (single && wholeAt(tree, i, rendered)) return resolveVariable(expressionOf(inner), path, scope);
    const r = resolveVariable(expressionOf(inner), path, scope);
    if (!r.ok) return r;
    rendered[i] = render(r.value);
  }
  const out = join(tree.top, rendered);
  return out === undefined ? tooLong(path) : ok(out);
}

/** Substitutes the variables of `text`, a string found at Kyverno path `path`. */
export function substituteText(text: string, path: string, scope: SubstitutionScope): Result<JsonValue> {
  if (!text.includes("{{")) return ok(text);
  const template = scope.cache.template(text);
  if (template.literal) return ok(text);
  if (template.variable !== undefined) return template.variable.resolve(path, scope);
  return template.tree === undefined ? ok(text) : evaluate(template.tree, path, scope);
}
