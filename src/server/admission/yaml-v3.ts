/**
 * A two-level string map written exactly as Go's gopkg.in/yaml.v3 encoder writes it with indent 2
 * (Kyverno's denial message, `pkg/webhooks/utils/block.go`): keys in yaml.v3's natural order (runs of digits compare as
 * numbers), and each string in the style yaml.v3 picks: plain when it reads back as the same string,
 * else single quotes, else double quotes with escapes; strings with a newline as a `|` literal block.
 * No line folding: yaml.v3 writes long lines whole.
 * The `yaml` package is not used here because its quoting choices differ from yaml.v3's.
 */

type Style = "plain" | "single" | "double" | "literal";

/**
 * Writes denial maps, remembering what it worked out: a denial repeats the policy names, rule names
 * and messages of earlier ones, so most key orders and scalars are worked out once. One writer per
 * server (AdmissionDeps.denialYaml); each memo is bounded by MEMO_LIMIT and emptied when full, so
 * hostile input cannot grow it. Rendering is a pure function of the text: a writer's memo changes
 * its speed, never its output.
 */
export class YamlV3Writer {
  /** Key orders already worked out, by the keys as JSON text (no two key lists share it). */
  readonly #sortedKeys = new Map<string, readonly string[]>();
  /** Rendered keys and values by text. */
  readonly #renderedKeys = new Map<string, string>();
  readonly #renderedValues = new Map<string, string>();

  marshalNestedMap(map: ReadonlyMap<string, ReadonlyMap<string, string>>): string {
    if (map.size === 0) return "{}\n";
    let out = "";
    for (const key of this.#sortedOnce([...map.keys()])) {
      const inner = map.get(key) ?? new Map<string, string>();
      if (inner.size === 0) {
        out += `${this.#scalarKey(key)}: {}\n`;
        continue;
      }
      out += `${this.#scalarKey(key)}:\n`;
      for (const k of this.#sortedOnce([...inner.keys()]))
        out += `  ${this.#scalarKey(k)}: ${this.#scalarValue(inner.get(k) ?? "")}\n`;
    }
    return out;
  }

  /** Entries held by the memos (for tests: they stay within MEMO_LIMIT each). */
  get memoSize(): number {
    return this.#sortedKeys.size + this.#renderedKeys.size + this.#renderedValues.size;
  }

  #sortedOnce(keys: readonly string[]): readonly string[] {
    if (keys.length < 2 || inOrder(keys)) return keys;
    return memo(this.#sortedKeys, JSON.stringify(keys), () => sortKeys(keys));
  }

  #scalarKey(s: string): string {
    return memo(this.#renderedKeys, s, renderKey);
  }

  /** Values sit at indent 4 (under `policy:` and `  rule:`). */
  #scalarValue(s: string): string {
    return memo(this.#renderedValues, s, renderValue);
  }
}

/** The map written by a writer of its own (nothing remembered between calls). */
export function marshalNestedMap(map: ReadonlyMap<string, ReadonlyMap<string, string>>): string {
  return new YamlV3Writer().marshalNestedMap(map);
}

/** yaml.v3's key order (sorter.go): rune by rune, letters by code, digit runs by value, non-letters first. */
export function sortKeys(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => (keyLess(a, b) ? -1 : keyLess(b, a) ? 1 : 0));
}

/** Entries each memo of a writer keeps before it is emptied, so hostile input cannot grow it without bound. */
export const MEMO_LIMIT = 512;

/** The value remembered for `key`, made by `make(key)` on a miss. */
function memo<V>(map: Map<string, V>, key: string, make: (key: string) => V): V {
  let out = map.get(key);
  if (out === undefined) {
    out = make(key);
    if (map.size >= MEMO_LIMIT) map.clear();
    map.set(key, out);
  }
  return out;
}

/** Whether the keys are already in yaml.v3's order (a denial's policies usually are: they are evaluated by name). */
function inOrder(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i++) if (keyLess(keys[i] as string, keys[i - 1] as string)) return false;
  return true;
}

const isLetter = (c: string): boolean =>
  (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c > "\x7f" && /\p{L}/u.test(c));
const ASCII = /^[\x00-\x7f]*$/;
/** The runes of a string: an ASCII string indexes as is, others are split by code point. */
const runes = (s: string): ArrayLike<string> => (ASCII.test(s) ? s : Array.from(s));
const isDigit = (c: string): boolean => c >= "0" && c <= "9";

function keyLess(a: string, b: string): boolean {
  const ar = runes(a);
  const br = runes(b);
  let digits = false;
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const ac = ar[i] ?? "";
    const bc = br[i] ?? "";
    if (ac === bc) {
      digits = isDigit(ac);
      continue;
    }
    const al = isLetter(ac);
    const bl = isLetter(bc);
    if (al && bl) return cp(ac) < cp(bc);
    if (al || bl) return digits ? al : bl;
    let an = 0n;
    let bn = 0n;
    if (ac === "0" || bc === "0") {
      for (let j = i - 1; j >= 0 && isDigit(ar[j] ?? ""); j--) {
        if (ar[j] !== "0") {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai] ?? ""); ai++) an = an * 10n + BigInt(cp(ar[ai] ?? "0") - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi] ?? ""); bi++) bn = bn * 10n + BigInt(cp(br[bi] ?? "0") - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return cp(ac) < cp(bc);
  }
  return ar.length < br.length;
}

function cp(c: string): number {
  return c.codePointAt(0) ?? 0;
}

function renderKey(s: string): string {
  const a = analyzeScalar(s);
  let style: Style = s.includes("\n") ? "literal" : readsAsString(s) ? "plain" : "double";
  if (a.multiline || style === "literal") style = "double";
  if (style === "plain" && !a.blockPlain) style = "single";
  if (style === "single" && !a.single) style = "double";
  return write(s, style, 0);
}

function renderValue(s: string): string {
  const indent = 4;
  const a = analyzeScalar(s);
  let style: Style = s.includes("\n") ? "literal" : readsAsString(s) ? "plain" : "double";
  if (style === "plain" && !a.blockPlain) style = "single";
  if (style === "single" && (!a.single || a.multiline)) style = "double";
  if (style === "literal" && !a.block) style = "double";
  return write(s, style, indent);
}

function write(s: string, style: Style, indent: number): string {
  switch (style) {
    case "plain":
      return s;
    case "single":
      return `'${s.replace(/'/g, "''")}'`;
    case "double":
      return `"${NOTHING_TO_ESCAPE.test(s) ? s : Array.from(s).map(escapeDouble).join("")}"`;
    case "literal":
      return literal(s, indent);
  }
}

function literal(s: string, indent: number): string {
  const hint = s.startsWith(" ") || isBreak(s[0] ?? "") ? "2" : "";
  const chomp = !s.endsWith("\n") ? "-" : s.length === 1 || s.endsWith("\n\n") ? "+" : "";
  const body = chomp === "" ? s.slice(0, -1) : chomp === "+" ? s.slice(0, -1) : s;
  const pad = " ".repeat(indent);
  const lines = body.split("\n").map((line) => (line === "" ? "" : pad + line));
  return `|${hint}${chomp}\n${lines.join("\n")}`;
}

const ESCAPES: Readonly<Record<number, string>> = {
  0x00: "\\0",
  0x07: "\\a",
  0x08: "\\b",
  0x09: "\\t",
  0x0a: "\\n",
  0x0b: "\\v",
  0x0c: "\\f",
  0x0d: "\\r",
  0x1b: "\\e",
  0x22: '\\"',
  0x5c: "\\\\",
  0x85: "\\N",
  0xa0: "\\_",
  0x2028: "\\L",
  0x2029: "\\P",
};

/** Printable ASCII other than `"` and `\\`: written as is inside double quotes. */
const NOTHING_TO_ESCAPE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function escapeDouble(c: string): string {
  const code = cp(c);
  if (isPrintable(code) && !isBreak(c) && c !== '"' && c !== "\\") return c;
  const named = ESCAPES[code];
  if (named !== undefined) return named;
  const hex = code.toString(16).toUpperCase();
  if (code <= 0xff) return `\\x${hex.padStart(2, "0")}`;
  if (code <= 0xffff) return `\\u${hex.padStart(4, "0")}`;
  return `\\U${hex.padStart(8, "0")}`;
}

/** yaml's printable set as yaml.v3 tests it (supplementary-plane characters count as not printable). */
function isPrintable(code: number): boolean {
  return (
    code === 0x0a ||
    (code >= 0x20 && code <= 0x7e) ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff)
  );
}

function isBreak(c: string): boolean {
  return isBreakCode(c.charCodeAt(0));
}

function isBreakCode(code: number): boolean {
  return code === 0x0d || code === 0x0a || code === 0x85 || code === 0x2028 || code === 0x2029;
}

/** Blank, break or end of input (NaN: past the last character). */
function isBlankzCode(code: number): boolean {
  return Number.isNaN(code) || code === 0x20 || code === 0x09 || code === 0x00 || isBreakCode(code);
}

const FIRST_INDICATORS = new Set(Array.from("#,[]{}&*!|>'\"%@`", (c) => c.charCodeAt(0)));

interface ScalarAnalysis {
  readonly multiline: boolean;
  readonly blockPlain: boolean;
  readonly single: boolean;
  readonly block: boolean;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/**
 * libyaml's scalar analysis: which styles can carry the string unchanged. Rule messages are
 * nearly always printable ASCII on one line, where the answer reduces to a few substring tests;
 * anything else takes the character walk.
 */
export function analyzeScalar(value: string): ScalarAnalysis {
  if (!PRINTABLE_ASCII.test(value)) return analyzeScalarWalk(value);
  const c0 = value.charCodeAt(0);
  const blockIndicators =
    value.startsWith("---") ||
    value.startsWith("...") ||
    FIRST_INDICATORS.has(c0) ||
    ((c0 === 0x3f || c0 === 0x3a || c0 === 0x2d) && (value.length === 1 || value.charCodeAt(1) === 0x20)) ||
    value.includes(": ") ||
    value.endsWith(":") ||
    value.includes(" #");
  const leading = c0 === 0x20;
  const trailingSpace = value.endsWith(" ");
  return {
    multiline: false,
    blockPlain: !(leading || trailingSpace || blockIndicators),
    single: true,
    block: !trailingSpace,
  };
}

/**
 * The character walk: one pass over the UTF-16 code units; a surrogate pair is one character and
 * is not printable for yaml.v3.
 */
export function analyzeScalarWalk(value: string): ScalarAnalysis {
  if (value === "") return { multiline: false, blockPlain: true, single: true, block: false };
  let blockIndicators = value.startsWith("---") || value.startsWith("...");
  let lineBreaks = false;
  let special = false;
  let leading = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;
  const n = value.length;
  for (let i = 0; i < n;) {
    const code = value.codePointAt(i) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    const next = i + width;
    const followedByWhitespace = isBlankzCode(value.charCodeAt(next));
    const last = next >= n;
    if (i === 0) {
      if (FIRST_INDICATORS.has(code)) blockIndicators = true;
      if ((code === 0x3f || code === 0x3a || code === 0x2d) && followedByWhitespace) blockIndicators = true;
    } else if ((code === 0x3a && followedByWhitespace) || (code === 0x23 && precededByWhitespace)) {
      blockIndicators = true;
    }
    if (!isPrintable(code)) special = true;
    const isBreakHere = isBreakCode(code);
    if (isBreakHere) lineBreaks = true;
    if (code === 0x20) {
      if (i === 0) leading = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreakHere) {
      if (i === 0) leading = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousBreak = true;
      previousSpace = false;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankzCode(code);
    i = next;
  }
  return {
    multiline: lineBreaks,
    blockPlain: !(
      leading ||
      trailingSpace ||
      trailingBreak ||
      breakSpace ||
      spaceBreak ||
      special ||
      lineBreaks ||
      blockIndicators
    ),
    single: !(breakSpace || spaceBreak || special),
    block: !(trailingSpace || spaceBreak || special),
  };
}

const OLD_BOOLS = new Set([
  "y",
  "Y",
  "yes",
  "Yes",
  "YES",
  "on",
  "On",
  "ON",
  "n",
  "N",
  "no",
  "No",
  "NO",
  "off",
  "Off",
  "OFF",
]);
const RESOLVED = new Set([
  "~",
  "null",
  "Null",
  "NULL",
  "true",
  "True",
  "TRUE",
  "false",
  "False",
  "FALSE",
  ".nan",
  ".NaN",
  ".NAN",
  ".inf",
  ".Inf",
  ".INF",
  "+.inf",
  "+.Inf",
  "+.INF",
  "-.inf",
  "-.Inf",
  "-.INF",
  "<<",
]);
const LONGEST_KEYWORD = Math.max(...[...OLD_BOOLS, ...RESOLVED].map((k) => k.length));
const NUMERIC_START = /^[-+.0-9]/;
const INT = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)$/;
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60 = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const TIMESTAMP = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:$|[Tt ])/;

/** Whether yaml.v3 would read the plain scalar back as this same string (not null, bool, number, time). */
function readsAsString(s: string): boolean {
  if (s === "") return false;
  // Every keyword is short, and yaml.v3 only tries a number or a time when the first character is a
  // sign, a digit or a dot (its resolve table): other strings are text, however they go on.
  if (s.length <= LONGEST_KEYWORD && (RESOLVED.has(s) || OLD_BOOLS.has(s))) return false;
  if (!NUMERIC_START.test(s)) return true;
  if (BASE60.test(s) || TIMESTAMP.test(s)) return false;
  const plain = s.includes("_") ? s.replace(/_/g, "") : s;
  return !(INT.test(plain) || FLOAT.test(plain));
}
