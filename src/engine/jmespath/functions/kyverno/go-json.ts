/**
 * JSON decoding as Go's `json.Unmarshal` into `interface{}` does it, including its error texts
 * (`invalid character 'x' looking for beginning of value`, `unexpected end of JSON input`).
 */
import type { JsonObject, JsonValue } from "../../../api/json.js";
import { setOwn } from "../../../api/set-own.js";

class GoJsonError extends Error {}

/** Go's `quoteChar`: how the scanner names an unexpected byte. */
function quoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return "'\"'";
  let b = ch.codePointAt(0) ?? 0;
  if (b >= 0x80) {
    // Go reports the first UTF-8 byte, read as a Latin-1 character.
    b = b < 0x800 ? 0xc0 | (b >> 6) : b < 0x10000 ? 0xe0 | (b >> 12) : 0xf0 | (b >> 18);
  }
  const named: Record<number, string> = {
    7: "\\a",
    8: "\\b",
    9: "\\t",
    10: "\\n",
    11: "\\v",
    12: "\\f",
    13: "\\r",
    92: "\\\\",
  };
  const esc = named[b];
  if (esc !== undefined) return `'${esc}'`;
  if (b < 0x20 || b === 0x7f) return `'\\x${b.toString(16).padStart(2, "0")}'`;
  if (b >= 0x80 && b < 0xa0) return `'\\u${b.toString(16).padStart(4, "0")}'`;
  if (b === 0xad) return "'\\u00ad'";
  return `'${String.fromCharCode(b)}'`;
}

class Parser {
  private pos = 0;
  private numberError: string | undefined;
  constructor(private readonly s: string) {}

  private fail(context: string): never {
    const ch = this.s[this.pos];
    if (ch === undefined) throw new GoJsonError("unexpected end of JSON input");
    const cp = this.s.codePointAt(this.pos) ?? 0;
    throw new GoJsonError(`invalid character ${quoteChar(String.fromCodePoint(cp))} ${context}`);
  }

  private ws(): void {
    while (this.pos < this.s.length && " \t\n\r".includes(this.s[this.pos] ?? "")) this.pos++;
  }

  parseDocument(): JsonValue {
    this.ws();
    const v = this.value();
    this.ws();
    if (this.pos < this.s.length) this.fail("after top-level value");
    if (this.numberError !== undefined) throw new GoJsonError(this.numberError);
    return v;
  }

  private value(): JsonValue {
    const ch = this.s[this.pos];
    if (ch === "{") return this.object();
    if (ch === "[") return this.array();
    if (ch === '"') return this.string();
    if (ch === "-" || (ch !== undefined && ch >= "0" && ch <= "9")) return this.number();
    if (ch === "t") return this.literal("true", true);
    if (ch === "f") return this.literal("false", false);
    if (ch === "n") return this.literal("null", null);
    return this.fail("looking for beginning of value");
  }

  private literal(word: string, v: JsonValue): JsonValue {
    this.pos++;
    for (let i = 1; i < word.length; i++, this.pos++) {
      if (this.s[this.pos] !== word[i]) this.fail(`in literal ${word} (expecting '${word[i]}')`);
    }
    return v;
  }

  private object(): JsonObject {
    this.pos++;
    const out: JsonObject = {};
    this.ws();
    if (this.s[this.pos] === "}") {
      this.pos++;
      return out;
    }
    for (;;) {
      if (this.s[this.pos] !== '"') this.fail("looking for beginning of object key string");
      const key = this.string();
      this.ws();
      if (this.s[this.pos] !== ":") this.fail("after object key");
      this.pos++;
      this.ws();
      setOwn(out, key, this.value());
      this.ws();
      const ch = this.s[this.pos];
      if (ch === "}") {
        this.pos++;
        return out;
      }
      if (ch !== ",") this.fail("after object key:value pair");
      this.pos++;
      this.ws();
    }
  }

  private array(): JsonValue[] {
    this.pos++;
    const out: JsonValue[] = [];
    this.ws();
    if (this.s[this.pos] === "]") {
      this.pos++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const ch = this.s[this.pos];
      if (ch === "]") {
        this.pos++;
        return out;
      }
      if (ch !== ",") this.fail("after array element");
      this.pos++;
      this.ws();
    }
  }

  private hex4(): number {
    let n = 0;
    for (let i = 0; i < 4; i++, this.pos++) {
      const ch = this.s[this.pos] ?? "";
      if (!/^[0-9a-fA-F]$/.test(ch)) this.fail("in \\u hexadecimal character escape");
      n = n * 16 + parseInt(ch, 16);
    }
    return n;
  }

  private string(): string {
    this.pos++;
    let out = "";
    for (;;) {
      const ch = this.s[this.pos];
      if (ch === undefined) this.fail("");
      if (ch === '"') {
        this.pos++;
        return out;
      }
      if (ch < " ") this.fail("in string literal");
      if (ch !== "\\") {
        out += ch;
        this.pos++;
        continue;
      }
      this.pos++;
      const esc = this.s[this.pos];
      const simple: Record<string, string> = {
        '"': '"',
        "\\": "\\",
        "/": "/",
        b: "\b",
        f: "\f",
        n: "\n",
        r: "\r",
        t: "\t",
      };
      if (esc !== undefined && simple[esc] !== undefined) {
        out += simple[esc];
        this.pos++;
      } else if (esc === "u") {
        this.pos++;
        out += this.unicodeEscape();
      } else this.fail("in string escape code");
    }
  }

  /** `\uXXXX`, pairing surrogates; a lone surrogate becomes U+FFFD as in Go. */
  private unicodeEscape(): string {
    const hi = this.hex4();
    if (hi < 0xd800 || hi > 0xdfff) return String.fromCharCode(hi);
    if (hi < 0xdc00 && this.s.startsWith("\\u", this.pos)) {
      const save = this.pos;
      this.pos += 2;
      const lo = this.hex4();
      if (lo >= 0xdc00 && lo <= 0xdfff) return String.fromCharCode(hi, lo);
      this.pos = save;
    }
    return "\ufffd";
  }

  private digits(context: string): void {
    const ch = this.s[this.pos];
    if (ch === undefined || ch < "0" || ch > "9") this.fail(context);
    while ((this.s[this.pos] ?? "") >= "0" && (this.s[this.pos] ?? "") <= "9") this.pos++;
  }

  private number(): number {
    const start = this.pos;
    if (this.s[this.pos] === "-") this.pos++;
    if (this.s[this.pos] === "0") this.pos++;
    else this.digits("in numeric literal");
    if (this.s[this.pos] === ".") {
      this.pos++;
      this.digits("after decimal point in numeric literal");
    }
    if (this.s[this.pos] === "e" || this.s[this.pos] === "E") {
      this.pos++;
      if (this.s[this.pos] === "+" || this.s[this.pos] === "-") this.pos++;
      this.digits("in exponent of numeric literal");
    }
    const text = this.s.slice(start, this.pos);
    const n = Number(text);
    if (!Number.isFinite(n) && this.numberError === undefined) {
      this.numberError = `json: cannot unmarshal number ${text} into Go value of type float64`;
    }
    return n;
  }
}

/** Decodes JSON text, or returns Go's error message. */
export function parseGoJson(text: string): { ok: true; value: JsonValue } | { ok: false; error: string } {
  try {
    return { ok: true, value: new Parser(text).parseDocument() };
  } catch (e) {
    if (e instanceof GoJsonError) return { ok: false, error: e.message };
    throw e;
  }
}
