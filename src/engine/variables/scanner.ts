/**
 * Finds `{{ … }}` variables the way Kyverno's regular expression does: a variable is `{{`, then
 * any run of characters other than braces or single-brace groups like `{a: b}` (JMESPath
 * multi-select hashes), then `}}`; it must start the string or follow a character that is not a
 * backslash (`\{{ … }}` is an escape). The preceding character is consumed by the match, so of two
 * touching variables `{{a}}{{b}}` only the first is found in one pass; the next pass finds the other.
 */
import type { VariableMatch } from "./types.js";

const VARIABLE = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;
const ESCAPED_VARIABLE = /\\\{\{(?:\{[^{}]*\}|[^{}])*\}\}/g;

// Go's strings.TrimSpace: ASCII spaces plus U+0085, U+00A0 and the Unicode White_Space set.
const GO_SPACE = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING_SPACE = new RegExp(`^[${GO_SPACE}]+`);
const TRAILING_SPACE = new RegExp(`[${GO_SPACE}]+$`);

export function goTrimSpace(s: string): string {
  // Fast path: nothing to trim when both ends are printable ASCII other than the space.
  if (s === "" || (isPlainAscii(s.charCodeAt(0)) && isPlainAscii(s.charCodeAt(s.length - 1)))) return s;
  return s.replace(LEADING_SPACE, "").replace(TRAILING_SPACE, "");
}

function isPlainAscii(code: number): boolean {
  return code > 0x20 && code < 0x7f;
}

/** Splits `{{ inner }}` into its expression and whether it was written `{{- … }}` (shallow). */
function parseVariableText(text: string): { expression: string; shallow: boolean } {
  const inner = text.slice(2, -2);
  if (inner.startsWith("-")) return { expression: goTrimSpace(inner.slice(1)), shallow: true };
  return { expression: goTrimSpace(inner), shallow: false };
}

/** One pass of Kyverno's variable scan over `text`, left to right. */
export function scanVariables(text: string): VariableMatch[] {
  if (!text.includes("{{")) return [];
  const out: VariableMatch[] = [];
  for (const m of text.matchAll(VARIABLE)) {
    const prefix = m[1] ?? "";
    const body = m[2] ?? "";
    const start = m.index + prefix.length;
    out.push({ start, end: start + body.length, text: body, ...parseVariableText(body) });
  }
  return out;
}

/** Removes the backslash of every escaped variable `\{{ … }}`: the last step of a substitution. */
export function unescapeVariables(text: string): string {
  if (!text.includes("\\{{")) return text;
  let out = text;
  for (const m of text.matchAll(ESCAPED_VARIABLE)) {
    out = out.replaceAll(m[0], m[0].slice(1));
  }
  return out;
}

/** Escapes every `{{` so a later pass does not expand it (shallow substitution). */
export function escapeVariables(text: string): string {
  return text.replaceAll("{{", "\\{{");
}
