/**
 * YAML parsers report some mistakes where the text stops making sense, which is often the line
 * after the one to fix: a key without its colon (`name x`), a quote or a `{`/`[` left open. When
 * the last content line before the reported one shows such a mistake, this names it.
 */

/** A hint naming the line before `line0` (0-based, in `text`), or undefined when it looks sound. */
export function lateErrorHint(text: string, line0: number, firstLine: number): string | undefined {
  const lines = text.split("\n");
  let i = Math.min(line0, lines.length) - 1;
  while (i >= 0 && isBlankOrComment(lines[i] ?? "")) i--;
  if (i < 0 || insideBlockScalar(lines, i)) return undefined;
  const raw = (lines[i] ?? "").replace(/\r$/, "");
  const content = withoutComment(raw).trim();
  const at = `line ${firstLine + i} (${JSON.stringify(raw.trim())})`;
  if (opensQuote(content)) return `${at} opens a quote it does not close`;
  const open = unclosedBracket(content);
  if (open !== undefined) return `${at} opens a "${open}" it does not close`;
  if (looksLikeKeyWithoutColon(content)) return `${at} has no "key: value" colon`;
  return undefined;
}

/** Whether line `i` is text of a `|` or `>` block scalar begun on a less indented line. */
function insideBlockScalar(lines: readonly string[], i: number): boolean {
  const indent = indentOf(lines[i] ?? "");
  for (let j = i - 1; j >= 0; j--) {
    const line = lines[j] ?? "";
    if (isBlankOrComment(line) || indentOf(line) >= indent) continue;
    return /[|>][-+0-9]*\s*$/.test(withoutComment(line).trimEnd());
  }
  return false;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function isBlankOrComment(line: string): boolean {
  const t = line.trim();
  return t === "" || t.startsWith("#");
}

/** The line without a trailing ` # comment` outside quotes. */
function withoutComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || line[i - 1] === " ")) return line.slice(0, i);
  }
  return line;
}

/** A value that starts with a quote and does not end it (escapes aside). */
function opensQuote(content: string): boolean {
  const value = content.replace(/^-\s+/, "").replace(/^[^"'{[]*?:\s+/, "");
  const q = value[0];
  if (q !== '"' && q !== "'") return false;
  const body = value.slice(1).replace(q === '"' ? /\\./g : /''/g, "");
  return !body.includes(q);
}

/** The last `{` or `[` left open on the line, outside quotes. */
function unclosedBracket(content: string): string | undefined {
  const stack: string[] = [];
  let quote: string | undefined;
  for (const c of content) {
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "{" || c === "[") stack.push(c);
    else if ((c === "}" || c === "]") && stack.length > 0) stack.pop();
  }
  return stack.at(-1);
}

/** `name x`: words with a space and no `: ` or trailing colon, not a list item or a block scalar line. */
function looksLikeKeyWithoutColon(content: string): boolean {
  if (content.startsWith("- ") || content === "-" || content.startsWith("---")) return false;
  if (/:(\s|$)/.test(content)) return false;
  return /^[A-Za-z_][\w.-]*\s+\S/.test(content);
}
