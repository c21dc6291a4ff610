/**
 * Locate the first JSON syntax error in a text, for a 400 that says where the body is broken.
 * Only called after JSON.parse has failed, so speed does not matter; the scan is iterative so a
 * hostile, deeply nested body cannot overflow the stack. The message never quotes the body.
 */

interface JsonSyntaxProblem {
  readonly message: string;
  /** 0-based offset in UTF-16 code units. */
  readonly offset: number;
  /** 1-based line and column. */
  readonly line: number;
  readonly column: number;
}

class Stop extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

type State = "value" | "value-or-close" | "key" | "key-or-close" | "colon" | "after";
const ARRAY = 0;
const OBJECT = 1;

export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  try {
    scan(text);
    return undefined;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    const before = text.slice(0, e.offset);
    const line = before.split("\n").length;
    const column = e.offset - before.lastIndexOf("\n");
    return {
      message: `${e.message} at line ${line}, column ${column} (offset ${e.offset})`,
      offset: e.offset,
      line,
      column,
    };
  }
}

/** `JSON.parse`, with a positioned message on failure. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    if (text.trim() === "") return { ok: false, message: "the request body is empty" };
    const problem = findJsonSyntaxError(text);
    return { ok: false, message: problem?.message ?? (e instanceof Error ? e.message : String(e)) };
  }
}

function scan(text: string): void {
  const stack: number[] = [];
  let state: State = "value";
  let i = 0;
  for (;;) {
    i = skipWhitespace(text, i);
    if (i >= text.length) {
      if (state === "after" && stack.length === 0) return;
      throw new Stop(i, "unexpected end of JSON input");
    }
    const c = text[i] as string;
    switch (state) {
      case "value":
      case "value-or-close":
        if (state === "value-or-close" && c === "]") {
          stack.pop();
          i++;
          state = "after";
        } else if (c === "{") {
          stack.push(OBJECT);
          i++;
          state = "key-or-close";
        } else if (c === "[") {
          stack.push(ARRAY);
          i++;
          state = "value-or-close";
        } else {
          i = scanScalar(text, i);
          state = "after";
        }
        break;
      case "key":
      case "key-or-close":
        if (state === "key-or-close" && c === "}") {
          stack.pop();
          i++;
          state = "after";
        } else if (c === '"') {
          i = scanString(text, i);
          state = "colon";
        } else {
          throw new Stop(i, `expected a string object key but found ${describe(c)}`);
        }
        break;
      case "colon":
        if (c !== ":") throw new Stop(i, `expected ':' after an object key but found ${describe(c)}`);
        i++;
        state = "value";
        break;
      case "after": {
        const top = stack[stack.length - 1];
        if (top === undefined) throw new Stop(i, `unexpected ${describe(c)} after the end of the JSON value`);
        const close = top === OBJECT ? "}" : "]";
        if (c === ",") {
          i++;
          state = top === OBJECT ? "key" : "value";
        } else if (c === close) {
          stack.pop();
          i++;
        } else {
          throw new Stop(i, `expected ',' or '${close}' but found ${describe(c)}`);
        }
        break;
      }
    }
  }
}

function scanScalar(text: string, i: number): number {
  const c = text[i] as string;
  if (c === '"') return scanString(text, i);
  if (c === "-" || (c >= "0" && c <= "9")) return scanNumber(text, i);
  for (const literal of ["true", "false", "null"]) {
    if (text.startsWith(literal, i)) return i + literal.length;
  }
  throw new Stop(i, `unexpected ${describe(c)} where a value was expected`);
}

function scanString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) throw new Stop(i, `unescaped control character ${describe(text[i] as string)} in a string`);
    if (code === 0x5c) {
      const next = text[i + 1];
      if (next === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
          throw new Stop(i, "bad \\u escape in a string (needs 4 hex digits)");
        i += 6;
        continue;
      }
      if (next === undefined || !'"\\/bfnrt'.includes(next)) throw new Stop(i, "bad escape sequence in a string");
      i += 2;
      continue;
    }
    i++;
  }
  throw new Stop(start, "unterminated string");
}

function scanNumber(text: string, start: number): number {
  const number = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
  number.lastIndex = start;
  const match = number.exec(text);
  if (match === null) throw new Stop(start, "malformed number");
  const end = start + match[0].length;
  const next = text[end];
  if (next !== undefined && /[0-9.eE+-]/.test(next)) throw new Stop(end, "malformed number");
  return end;
}

function skipWhitespace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

function describe(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  if (code >= 0x21 && code <= 0x7e) return `'${c}'`;
  return `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}
