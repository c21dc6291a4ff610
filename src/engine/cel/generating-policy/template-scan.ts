/**
 * The `(( … ))` placeholders of a GeneratingPolicy template's scalar (Kyverno 1.19
 * `spec.generate[].template` with `interpolate: cel`): a scalar splits into literal text and CEL
 * expressions. Inside a placeholder, parentheses nest and CEL string literals (single or double
 * quoted, with backslash escapes) are skipped, so `(( f(x) ))` and `(( "))".size() ))` end where
 * they should. `\((` writes a literal `((`.
 */

type TemplatePart = { readonly text: string } | { readonly expression: string };

const ESCAPE = "\\((";

/** The scalar's parts in order, or why a placeholder in it is malformed. */
export function scanPlaceholders(s: string): { ok: true; parts: TemplatePart[] } | { ok: false; message: string } {
  const parts: TemplatePart[] = [];
  let text = "";
  let i = 0;
  while (i < s.length) {
    if (s.startsWith(ESCAPE, i)) {
      text += "((";
      i += ESCAPE.length;
    } else if (s.startsWith("((", i)) {
      const found = placeholderAt(s, i);
      if (!found.ok) return found;
      if (text !== "") parts.push({ text });
      text = "";
      parts.push({ expression: found.expression });
      i = found.next;
    } else {
      text += s[i];
      i++;
    }
  }
  if (text !== "") parts.push({ text });
  return { ok: true, parts };
}

/** The trimmed expression of the placeholder opening at `start`, and the index after its `))`. */
function placeholderAt(
  s: string,
  start: number,
): { ok: true; expression: string; next: number } | { ok: false; message: string } {
  let depth = 0;
  let quote: string | undefined;
  for (let i = start + 2; i < s.length; i++) {
    const c = s[i];
    if (quote !== undefined) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === "(") depth++;
    else if (c === ")") {
      if (depth > 0) depth--;
      else if (s[i + 1] === ")") {
        const expression = s.slice(start + 2, i).trim();
        if (expression === "") return { ok: false, message: `empty placeholder at offset ${start}` };
        return { ok: true, expression, next: i + 2 };
      } else return { ok: false, message: `unbalanced parenthesis in placeholder starting at offset ${start}` };
    }
  }
  return {
    ok: false,
    message:
      quote !== undefined
        ? `unterminated string literal in placeholder starting at offset ${start}`
        : `unterminated placeholder starting at offset ${start}: missing closing '))'`,
  };
}

/** Whether the scalar holds a placeholder (an unescaped `((`). */
export function hasPlaceholder(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    if (s.startsWith(ESCAPE, i)) i += ESCAPE.length - 1;
    else if (s.startsWith("((", i)) return true;
  }
  return false;
}

/** Whether the scalar needs the scan: a placeholder, or an escape to unescape. */
export function needsScan(s: string): boolean {
  return s.includes(ESCAPE) || hasPlaceholder(s);
}
