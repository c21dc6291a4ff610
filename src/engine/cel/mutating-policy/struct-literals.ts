/**
 * CEL's object constructors as a MutatingPolicy writes them (`Object{metadata: Object.metadata{…}}`,
 * `JSONPatch{op: "add", …}`) rewritten, before compiling, into the map literals they build
 * (`dyn({"metadata": dyn({…})})`: dyn, so that a branch may be null as a message may): Bylaw's CEL has no schema types for the objects a policy patches, and a
 * constructor's only effect on a patch is the fields it sets. Strings are copied as they are;
 * only a type name starting `Object` or naming `JSONPatch` opens a constructor, and only its own
 * field names (not those of a map or call inside it) are quoted.
 */

import type { CelProgram } from "../types.js";

export const CONSTRUCTOR = /^(?:Object(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*|JSONPatch)\s*\{/;
export const FIELD = /^(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*):/;
export const IDENT_CHAR = /[A-Za-z0-9_.]/;

type Open = "struct" | "{" | "(" | "[";
const CLOSERS: Readonly<Record<string, Open>> = { "}": "{", ")": "(", "]": "[" };

/** A program compiled from the rewritten text, carrying the text as the policy writes it (what messages and explanations show). */
export function asWritten(program: CelProgram, written: string): CelProgram {
  return program.expression === written ? program : { ...program, expression: written };
}

/** The expression with every object constructor written as a map literal; unchanged when it has none. */
export function structLiteralsAsMaps(expression: string): string {
  if (!/(Object|JSONPatch)\s*(\.|\{)/.test(expression)) return expression;
  const stack: Open[] = [];
  let out = "";
  let i = 0;
  let expectField = false;
  while (i < expression.length) {
    const ch = expression[i] ?? "";
    if (ch === '"' || ch === "'") {
      const end = stringEnd(expression, i);
      out += expression.slice(i, end);
      i = end;
      continue;
    }
    if (expectField) {
      expectField = false;
      const field = FIELD.exec(expression.slice(i));
      if (field !== null) {
        out += `${field[1] ?? ""}"${field[2] ?? ""}"${field[3] ?? ""}:`;
        i += field[0].length;
        continue;
      }
    }
    const before = i === 0 ? "" : (expression[i - 1] ?? "");
    const ctor = IDENT_CHAR.test(before) ? null : CONSTRUCTOR.exec(expression.slice(i));
    if (ctor !== null) {
      out += "dyn({";
      i += ctor[0].length;
      stack.push("struct");
      expectField = true;
      continue;
    }
    if (ch === "{" || ch === "(" || ch === "[") stack.push(ch);
    else if (ch in CLOSERS) {
      const top = stack.pop();
      out += top === "struct" && ch === "}" ? "})" : ch;
      i++;
      continue;
    } else if (ch === "," && stack[stack.length - 1] === "struct") expectField = true;
    out += ch;
    i++;
  }
  return out;
}

/** The index just past the string literal starting at `start` (single, double or triple quoted). */
export function stringEnd(s: string, start: number): number {
  const quote = s[start] ?? '"';
  const triple = s.startsWith(quote.repeat(3), start);
  const raw = start > 0 && /[rR]/.test(s[start - 1] ?? "");
  const close = triple ? quote.repeat(3) : quote;
  let i = start + close.length;
  while (i < s.length) {
    if (!raw && s[i] === "\\") {
      i += 2;
      continue;
    }
    if (s.startsWith(close, i)) return i + close.length;
    if (!triple && s[i] === "\n") return i;
    i++;
  }
  return s.length;
}
