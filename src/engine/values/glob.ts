/**
 * Glob patterns as Kyverno's ImageValidatingPolicy `matchImageReferences[].glob` reads them (the
 * gobwas/glob library, compiled without separators), settled from that library's lexer and parser:
 * - `*` and `**`: any run of characters, including none (no separators, so they are the same);
 * - `?`: exactly one character;
 * - `[abc]`, `[!abc]`: one character among (or not among) those listed; `[a-z]`, `[!a-z]`: one
 *   character in (or outside) the inclusive range; an empty class (`[]`, `[!]`) does not compile;
 * - `{a,b*,c}`: any of the alternatives, each a pattern (nested groups allowed); a group left open
 *   at the end of the pattern is closed there; outside a group `,` and `}` are plain characters;
 * - `\x`: the character x itself (a backslash at the very end is dropped);
 * - an unterminated class is an error (`unexpected end of input`).
 * Matching is whole-string, case-sensitive, on Unicode code points. The pattern becomes one RE2
 * expression (re2js), so matching time is linear in the image reference whatever the pattern.
 */
import { RE2JS } from "re2js";
import { err, ok, type Result } from "../api/result.js";

export interface Glob {
  readonly pattern: string;
  match(value: string): boolean;
}

/** Compiles `pattern`; a malformed class is an error naming what is wrong. */
export function compileGlob(pattern: string): Result<Glob> {
  const parsed = new GlobParser(Array.from(pattern)).parse();
  if (!parsed.ok) return parsed;
  let re: RE2JS;
  try {
    re = RE2JS.compile(`^(?s:${parsed.value})$`);
  } catch (e) {
    return err("glob", `glob ${JSON.stringify(pattern)}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return ok({ pattern, match: (value: string) => re.matches(value) });
}

const TEXT_BREAKS = new Set(["?", "*", "[", "{"]);
const GROUP_BREAKS = new Set([...TEXT_BREAKS, "}", ","]);

/** One pass over the pattern's code points, writing the equivalent RE2 expression. */
class GlobParser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly chars: readonly string[]) {}

  parse(): Result<string> {
    let out = "";
    while (this.pos < this.chars.length) {
      const c = this.chars[this.pos++]!;
      if (c === "{") {
        this.depth++;
        out += "(?:";
      } else if (c === "," && this.depth > 0) {
        out += "|";
      } else if (c === "}" && this.depth > 0) {
        this.depth--;
        out += ")";
      } else if (c === "[") {
        const cls = this.charClass();
        if (!cls.ok) return cls;
        out += cls.value;
      } else if (c === "?") {
        out += ".";
      } else if (c === "*") {
        if (this.chars[this.pos] === "*") this.pos++;
        out += ".*";
      } else {
        this.pos--;
        out += quote(this.text(this.depth > 0 ? GROUP_BREAKS : TEXT_BREAKS));
      }
    }
    // A group still open at the end is closed there.
    return ok(out + ")".repeat(this.depth));
  }

  /** Literal characters up to the next one in `breaks` (escapes resolved). */
  private text(breaks: ReadonlySet<string>): string {
    let out = "";
    let escaped = false;
    while (this.pos < this.chars.length) {
      const c = this.chars[this.pos]!;
      if (!escaped && c === "\\") {
        escaped = true;
        this.pos++;
        continue;
      }
      if (!escaped && breaks.has(c)) break;
      escaped = false;
      out += c;
      this.pos++;
    }
    return out;
  }

  /** A class after its `[`: `!` once at the start, then a range `a-z` or a list of characters, then `]`. */
  private charClass(): Result<string> {
    const end = err("glob", "unexpected end of input");
    let not = false;
    if (this.chars[this.pos] === "!") {
      not = true;
      this.pos++;
    }
    const first = this.chars[this.pos];
    if (first === undefined) return end;
    if (this.chars[this.pos + 1] === "-") {
      const hi = this.chars[this.pos + 2];
      if (hi === undefined) return end;
      this.pos += 3;
      const close = this.closeClass();
      if (!close.ok) return close;
      if (hi.codePointAt(0)! < first.codePointAt(0)!)
        return err("glob", `hi character '${hi}' should be greater than lo '${first}'`);
      return ok(`[${not ? "^" : ""}${classChar(first)}-${classChar(hi)}]`);
    }
    const listed = this.text(new Set(["]"]));
    if (listed === "") {
      if (this.chars[this.pos] === undefined) return end;
      return err("glob", "could not parse range");
    }
    const close = this.closeClass();
    if (!close.ok) return close;
    return ok(`[${not ? "^" : ""}${Array.from(listed).map(classChar).join("")}]`);
  }

  /** The `]` that ends a class (the lexer's errors come before the parser's). */
  private closeClass(): Result<null> {
    const c = this.chars[this.pos];
    if (c === undefined) return err("glob", "unexpected end of input");
    if (c !== "]") return err("glob", "expected close range character");
    this.pos++;
    return ok(null);
  }
}

function quote(text: string): string {
  return text === "" ? "" : RE2JS.quote(text);
}

/** One character inside an RE2 class, escaped when it means something there. */
function classChar(c: string): string {
  return /[\\\]\[^-]/.test(c) ? `\\${c}` : c;
}
