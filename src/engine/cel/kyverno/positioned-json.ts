/**
 * A JSON document read with each value's place kept, for protojson's error texts (protojson.ts):
 * a syntax error reads as Go's protobuf JSON decoder words it ("syntax error (line L:C): unexpected
 * token X", "invalid value X", "unexpected EOF"), where L:C is the line and the column (in
 * characters, from 1) of the token.
 */
import { goQuote } from "../../go/quote.js";
import { SIMPLE_ESCAPES } from "../../go/json-decode.js";

interface At {
  /** Offset of the value's first character. */
  readonly pos: number;
  /** The token as written: a string with its quotes, a number's digits, `{` or `[` for an object or array. */
  readonly raw: string;
}

export type JsonNode =
  | (At & { readonly kind: "string"; readonly value: string })
  | (At & { readonly kind: "number" | "true" | "false" | "null" })
  | (At & { readonly kind: "object"; readonly entries: readonly JsonEntry[] })
  | (At & { readonly kind: "array"; readonly items: readonly JsonNode[] });

interface JsonEntry {
  readonly key: string;
  readonly keyPos: number;
  readonly value: JsonNode;
}

/** A document that cannot be read; its message is protojson's (without the "proto: " prefix). */
export class ProtoJsonError extends Error {}

/** "(line L:C)" for an offset of `text`, as protojson places its errors. */
export function place(text: string, pos: number): string {
  const before = text.slice(0, pos);
  const lineStart = before.lastIndexOf("\n") + 1;
  const line = before.split("\n").length;
  return `(line ${line}:${[...before.slice(lineStart)].length + 1})`;
}

const WS = /[ \t\n\r]/;
const DELIMITER = /[ \t\n\r,:[\]{}]/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;

/**
 * The document's first value, and the error for what follows it if anything does (protojson reads
 * the value before it finds that: its own errors come first).
 */
export function parsePositionedJson(text: string): { doc: JsonNode; trailing?: ProtoJsonError } {
  const p = new Parser(text);
  const doc = p.value(0);
  p.skip();
  if (p.i >= text.length) return { doc };
  const c = text[p.i] ?? "";
  const what = '{}[],:"'.includes(c) ? `unexpected token ${p.tokenAt(p.i)}` : `invalid value ${p.tokenAt(p.i)}`;
  return { doc, trailing: new ProtoJsonError(`syntax error ${place(text, p.i)}: ${what}`) };
}

class Parser {
  i = 0;
  constructor(private readonly text: string) {}

  syntax(pos: number, what: string): never {
    throw new ProtoJsonError(`syntax error ${place(this.text, pos)}: ${what}`);
  }

  /** At the end of the text: the top level has no token, a value inside an object or array is cut short. */
  eof(depth: number): never {
    if (depth === 0) return this.syntax(this.i, "unexpected token ");
    throw new ProtoJsonError("unexpected EOF");
  }

  skip(): void {
    while (this.i < this.text.length && WS.test(this.text[this.i] ?? "")) this.i++;
  }

  /** The token at `pos` as protojson names it in "unexpected token". */
  tokenAt(pos: number): string {
    const c = this.text[pos] ?? "";
    if ("{}[],:".includes(c)) return c;
    if (c === '"') {
      const at = this.i;
      try {
        this.i = pos;
        this.string();
        return this.text.slice(pos, this.i);
      } finally {
        this.i = at;
      }
    }
    let end = pos;
    while (end < this.text.length && !DELIMITER.test(this.text[end] ?? "")) end++;
    return this.text.slice(pos, end);
  }

  /** What follows an object's key or value (`:`, `,` or the closing bracket): skips to it and checks it. */
  expect(depth: number, ...allowed: string[]): string {
    this.skip();
    if (this.i >= this.text.length) return this.eof(depth);
    const c = this.text[this.i] ?? "";
    if (!allowed.includes(c)) return this.syntax(this.i, `unexpected token ${this.tokenAt(this.i)}`);
    this.i++;
    return c;
  }

  string(): string {
    const { text } = this;
    const start = this.i;
    let out = "";
    this.i++;
    for (;;) {
      if (this.i >= text.length) throw new ProtoJsonError("unexpected EOF");
      const c = text[this.i] ?? "";
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c !== "\\") {
        out += c;
        this.i++;
        continue;
      }
      const e = text[this.i + 1] ?? "";
      const hex = text.slice(this.i + 2, this.i + 6);
      if (e === "u" && /^[0-9a-fA-F]{4}$/.test(hex)) {
        out += String.fromCharCode(parseInt(hex, 16));
        this.i += 6;
        continue;
      }
      const plain = SIMPLE_ESCAPES[e];
      if (plain === undefined)
        return this.syntax(start, `invalid escape code ${goQuote(text.slice(this.i, this.i + 2))} in string`);
      out += plain;
      this.i += 2;
    }
  }

  value(depth: number): JsonNode {
    this.skip();
    if (this.i >= this.text.length) return this.eof(depth);
    const pos = this.i;
    const c = this.text[pos] ?? "";
    if (c === "{") return this.object(depth, pos);
    if (c === "[") return this.array(depth, pos);
    if (c === '"') {
      const value = this.string();
      return { kind: "string", pos, raw: this.text.slice(pos, this.i), value };
    }
    if ("}],:".includes(c)) return this.syntax(pos, `unexpected token ${c}`);
    const raw = this.tokenAt(pos);
    const kind =
      raw === "true" || raw === "false" || raw === "null" ? raw : NUMBER.exec(raw)?.[0] === raw ? "number" : undefined;
    if (kind === undefined) return this.syntax(pos, `invalid value ${raw}`);
    this.i += raw.length;
    return { kind, pos, raw };
  }

  private object(depth: number, pos: number): JsonNode {
    this.i++;
    const entries: JsonEntry[] = [];
    this.skip();
    if (this.text[this.i] === "}") {
      this.i++;
      return { kind: "object", pos, raw: "{", entries };
    }
    for (;;) {
      this.skip();
      if (this.i >= this.text.length) return this.eof(depth + 1);
      if (this.text[this.i] !== '"') return this.syntax(this.i, `unexpected token ${this.tokenAt(this.i)}`);
      const keyPos = this.i;
      const key = this.string();
      this.expect(depth + 1, ":");
      entries.push({ key, keyPos, value: this.value(depth + 1) });
      if (this.expect(depth + 1, ",", "}") === "}") return { kind: "object", pos, raw: "{", entries };
    }
  }

  private array(depth: number, pos: number): JsonNode {
    this.i++;
    const items: JsonNode[] = [];
    this.skip();
    if (this.text[this.i] === "]") {
      this.i++;
      return { kind: "array", pos, raw: "[", items };
    }
    for (;;) {
      items.push(this.value(depth + 1));
      if (this.expect(depth + 1, ",", "]") === "]") return { kind: "array", pos, raw: "[", items };
    }
  }
}
