/**
 * The tokenizer. It follows go-jmespath's lexer, including its quirks: `-` alone is a number
 * token, a lone `=` is tUnknown, whitespace is only space, tab, CR and LF, a raw string only
 * unescapes `\'`, and a backtick literal only unescapes "\`" (its JSON is decoded by the parser).
 */
import { rawSyntaxError, syntaxError } from "./errors.js";
import { goJsonUnmarshal, GoJsonDecodeError } from "../go/json-decode.js";
import { goQuoteRuneToAscii } from "../go/quote.js";
import { Tok, type Token, type TokType } from "./tokens.js";

const SINGLE: Readonly<Record<string, TokType>> = {
  ".": Tok.Dot,
  "*": Tok.Star,
  ",": Tok.Comma,
  ":": Tok.Colon,
  "{": Tok.Lbrace,
  "}": Tok.Rbrace,
  "]": Tok.Rbracket,
  "(": Tok.Lparen,
  ")": Tok.Rparen,
  "@": Tok.Current,
};

/** Two-character operators: first char -> [second char, two-char token, one-char token]. */
const PAIRS: Readonly<Record<string, readonly [string, TokType, TokType]>> = {
  "|": ["|", Tok.Or, Tok.Pipe],
  "<": ["=", Tok.LTE, Tok.LT],
  ">": ["=", Tok.GTE, Tok.GT],
  "!": ["=", Tok.NE, Tok.Not],
  "=": ["=", Tok.EQ, Tok.Unknown],
  "&": ["&", Tok.And, Tok.Expref],
};

function isIdentStart(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
}

function isIdentChar(c: string): boolean {
  return isIdentStart(c) || (c >= "0" && c <= "9");
}

function isDigit(c: string): boolean {
  return c >= "0" && c <= "9";
}

class Lexer {
  private pos = 0;
  readonly tokens: Token[] = [];

  constructor(private readonly src: string) {}

  run(): Token[] {
    const s = this.src;
    while (this.pos < s.length) {
      const start = this.pos;
      const c = s.charAt(start);
      if (isIdentStart(c)) {
        let end = start + 1;
        while (end < s.length && isIdentChar(s.charAt(end))) end++;
        this.push(Tok.UnquotedIdentifier, s.slice(start, end), start, end);
      } else if (SINGLE[c] !== undefined) {
        this.push(SINGLE[c], c, start, start + 1);
      } else if (c === "-" || isDigit(c)) {
        let end = start + 1;
        while (end < s.length && isDigit(s.charAt(end))) end++;
        this.push(Tok.Number, s.slice(start, end), start, end);
      } else if (c === "[") {
        const next = s.charAt(start + 1);
        if (next === "?") this.push(Tok.Filter, "[?", start, start + 2);
        else if (next === "]") this.push(Tok.Flatten, "[]", start, start + 2);
        else this.push(Tok.Lbracket, "[", start, start + 1);
      } else if (c === '"') {
        this.quotedIdentifier(start);
      } else if (c === "'") {
        this.rawString(start);
      } else if (c === "`") {
        const body = this.until(start, "`");
        this.tokens.push({ type: Tok.JSONLiteral, value: body.replaceAll("\\`", "`"), position: start + 1 });
      } else if (PAIRS[c] !== undefined) {
        const [second, two, one] = PAIRS[c];
        if (s.charAt(start + 1) === second) this.push(two, c + second, start, start + 2);
        else this.push(one, c, start, start + 1);
      } else if (c === " " || c === "\t" || c === "\n" || c === "\r") {
        this.pos++;
      } else {
        const cp = s.codePointAt(start) ?? 0;
        throw syntaxError(`Unknown char: ${goQuoteRuneToAscii(cp)}`, s, start);
      }
    }
    this.tokens.push({ type: Tok.EOF, value: "", position: s.length });
    return this.tokens;
  }

  private push(type: TokType, value: string, start: number, end: number): void {
    this.tokens.push({ type, value, position: start });
    this.pos = end;
  }

  /** Reads up to the closing `end`, skipping backslash-escaped characters; returns the body. */
  private until(open: number, end: string): string {
    const s = this.src;
    let i = open + 1;
    while (i < s.length && s.charAt(i) !== end) {
      i += s.charAt(i) === "\\" && i + 1 < s.length ? 2 : 1;
    }
    if (i >= s.length) throw syntaxError(`Unclosed delimiter: ${end}`, s, s.length);
    this.pos = i + 1;
    return s.slice(open + 1, i);
  }

  private quotedIdentifier(open: number): void {
    const body = this.until(open, '"');
    let name: string;
    try {
      name = goJsonUnmarshal(`"${body}"`) as string;
    } catch (e) {
      if (e instanceof GoJsonDecodeError) throw rawSyntaxError(e.message, this.src, open);
      throw e;
    }
    this.tokens.push({ type: Tok.QuotedIdentifier, value: name, position: open });
  }

  /** 'raw string': only \' is an escape; every other backslash is kept. */
  private rawString(open: number): void {
    const s = this.src;
    let value = "";
    let chunk = open + 1;
    let i = open + 1;
    for (;;) {
      if (i >= s.length) throw syntaxError("Unclosed delimiter: '", s, s.length);
      const c = s.charAt(i);
      if (c === "'") break;
      if (c === "\\" && s.charAt(i + 1) === "'") {
        value += s.slice(chunk, i) + "'";
        i += 2;
        chunk = i;
        continue;
      }
      i++;
    }
    value += s.slice(chunk, i);
    this.tokens.push({ type: Tok.StringLiteral, value, position: open + 1 });
    this.pos = i + 1;
  }
}

/** Splits an expression into tokens, ending with tEOF. Throws `JmesPathSyntaxError`. */
export function tokenize(expression: string): Token[] {
  return new Lexer(expression).run();
}
