/**
 * The one YAML writer: every YAML document Bylaw prints or saves (`apply -o` files and stdout,
 * `-p` PolicyReports, generated and patched resources, `serve --self-signed`'s caBundle line) goes
 * through `writeYaml`/`writeYamlStream`.
 *
 * Output must read back as the same JSON in a YAML 1.1 reader (Kubernetes: sigs.k8s.io/yaml over
 * go-yaml v2) and in a YAML 1.2 reader. It is the `yaml` package's stringifier, configured (ADR 0002):
 * - core (1.2) schema with `compat: 'yaml-1.1'`: a plain string that either schema would resolve to
 *   something else (true/yes/on/y, null/~, 0755, 0o17, 0x1F, 1e3, .inf, 1_000, 1:20, timestamps,
 *   `<<`) is quoted;
 * - one extra test, AMBIGUOUS_PLAIN, for what go-yaml v2 and other 1.1 readers resolve beyond those two
 *   schemas (0X1F, 0O17, 1__0, +_1, 1e_5, 0b-101, …), the reserved words in any case, and `=`;
 * - strings holding characters a 1.1 reader breaks lines at (NEL, U+2028, U+2029) or does not accept
 *   raw (DEL, C1 controls, U+FEFF, U+FFFE, U+FFFF) are double-quoted with those characters escaped,
 *   and so is multi-line text that would make a block scalar go-yaml v2 misreads (BLOCK_UNSAFE);
 * - no line folding, no anchors for repeated objects, block literals for multi-line strings.
 * Strings that read back as themselves stay plain, so the output looks like `kubectl get -o yaml`.
 */
import {
  Scalar,
  stringify,
  type CreateNodeOptions,
  type DocumentOptions,
  type SchemaOptions,
  type ScalarTag,
  type ToStringOptions,
} from "yaml";
import { stringTag } from "yaml/util";
import type { JsonValue } from "../../engine/index.js";

/**
 * Plain scalars some reader would resolve to a non-string, beyond the core and yaml-1.1 schemas'
 * own tests (which `yaml` already applies). Over-matching only adds quotes; under-matching corrupts.
 */
const AMBIGUOUS_PLAIN = new RegExp(
  [
    // booleans and nulls in any letter case (readers differ on which cases they accept), and `=` (1.1's value key)
    "^(?:y|n|yes|no|on|off|true|false|null|~|=|<<)?$",
    // infinities and not-a-number in any letter case
    "^[-+]?\\.(?:inf|nan)$",
    // go-yaml v2 integers: underscores anywhere after the first character, 0x/0o/0b in either case
    "^(?:[-+]_*)?(?:0_*x(?:_*[0-9a-f])+|0_*o(?:_*[0-7])+|0_*b(?:_*[01])+|[0-9](?:_*[0-9])*)_*$",
    // go-yaml v2 also reads 0b-101 and 0b+101 as binary ints (its 0b fallback parses a signed rest)
    "^0_*b_*[-+](?:_*[01])+_*$",
    // go-yaml v2 floats, underscores likewise
    "^(?:[-+]_*)?(?:\\.(?:_*[0-9])+|[0-9](?:_*[0-9])*(?:_*\\.(?:_*[0-9])*)?)(?:_*e_*[-+]?(?:_*[0-9])+)?_*$",
    // YAML 1.1 sexagesimal numbers (1:20, -190:20:30.15), generously
    "^[-+]?[0-9][0-9_]*(?::[0-9_]*)+(?:\\.[0-9_]*)?$",
    // YAML 1.1 timestamps, generously: a date, alone or followed by a time
    "^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[t \\t].*)?$",
  ].join("|"),
  "is",
);

const ambiguousPlain: ScalarTag = {
  tag: "tag:bylaw.dev,2026:ambiguous-plain",
  default: true,
  test: AMBIGUOUS_PLAIN,
  resolve: (text: string) => text,
};

/** Characters that must appear escaped (so inside double quotes), each with its YAML escape. */
const MUST_ESCAPE = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/;
const MUST_ESCAPE_ALL = /[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g;

function escapeFor(ch: string): string {
  switch (ch) {
    case "\u0085":
      return "\\N";
    case "\u2028":
      return "\\L";
    case "\u2029":
      return "\\P";
    default:
      return codeEscape(ch);
  }
}

/** `\xXX` or `\uXXXX` for a character of the Basic Multilingual Plane. */
function codeEscape(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

const stringifyPlainOrQuoted = stringTag.stringify;
if (stringifyPlainOrQuoted === undefined) throw new Error("yaml: the string tag has no stringifier");

/**
 * Multi-line text `yaml` would write as a block scalar that does not read back, so it is
 * double-quoted instead: a line starting with a tab (go-yaml v2 refuses it: "found a tab character
 * where an indentation space is expected"), and blank lines holding spaces or tabs before the first
 * line with text (readers take those spaces for the block's indentation: " \n" came back as "\n").
 */
const BLOCK_UNSAFE = /(?:^|\n)\t|^(?:[ \t]*\n)*[ \t]+\n/;

/**
 * `yaml`'s own string tag, except that strings with MUST_ESCAPE characters are double-quoted with
 * them escaped, and multi-line strings matching BLOCK_UNSAFE are double-quoted.
 */
const escapingStringTag: ScalarTag = {
  ...stringTag,
  stringify(item, ctx, onComment, onChompKeep) {
    const value = item.value;
    if (typeof value !== "string" || !(MUST_ESCAPE.test(value) || (value.includes("\n") && BLOCK_UNSAFE.test(value)))) {
      return stringifyPlainOrQuoted(item, ctx, onComment, onChompKeep);
    }
    return doubleQuoted(value);
  },
};

/**
 * A string as one double-quoted scalar on one line: JSON's string syntax is YAML's double-quoted
 * one (1.1 and 1.2), plus MUST_ESCAPE's characters escaped. Not `yaml`'s own double quotes: for
 * some multi-line text (2.9.1: "\n \n" then a line past 80 characters) they do not read back.
 */
function doubleQuoted(value: string): string {
  // One scalar, so every such character in it is content, and each escape reads back as it.
  return JSON.stringify(value).replace(MUST_ESCAPE_ALL, escapeFor);
}

const OPTIONS: CreateNodeOptions & DocumentOptions & SchemaOptions & ToStringOptions = {
  version: "1.2",
  schema: "core",
  customTags: (tags) => [
    ...tags.map((t) => (typeof t === "object" && t.tag === stringTag.tag ? escapingStringTag : t)),
    ambiguousPlain,
  ],
  compat: "yaml-1.1",
  merge: false,
  aliasDuplicateObjects: false,
  lineWidth: 0,
  blockQuote: "literal",
};

/**
 * The quoting go-yaml v3 chooses (what Kyverno's CLI marshals its `-o yaml` output with): a string
 * that would read back as something else (empty, a boolean, a number, null) in double quotes, other
 * strings that cannot be plain in single quotes. Everything else is the writer above.
 */
const goQuotingStringTag: ScalarTag = {
  ...escapingStringTag,
  stringify(item, ctx, onComment, onChompKeep) {
    const value = item.value;
    if (typeof value === "string" && !value.includes("\n") && (value === "" || AMBIGUOUS_PLAIN.test(value))) {
      const forced = new Scalar(value);
      forced.type = Scalar.QUOTE_DOUBLE;
      return escapingStringTag.stringify?.(forced, ctx, onComment, onChompKeep) ?? JSON.stringify(value);
    }
    return escapingStringTag.stringify?.(item, ctx, onComment, onChompKeep) ?? JSON.stringify(value);
  },
};

const GO_OPTIONS: typeof OPTIONS = {
  ...OPTIONS,
  customTags: (tags) => [
    ...tags.map((t) => (typeof t === "object" && t.tag === stringTag.tag ? goQuotingStringTag : t)),
    ambiguousPlain,
  ],
  singleQuote: true,
};

/** A JSON-like value as go-yaml v3's `Marshal` writes it, for output that must look like Kyverno's CLI's (`bylaw test -o yaml`). */
export function writeGoYaml(value: JsonValue): string {
  return stringify(value, GO_OPTIONS);
}

/**
 * A JSON-like value as go-yaml v3's `Marshal` writes a map (Kyverno 1.19's CLI prints mutated and
 * generated resources with it): v3's quoting (GO_OPTIONS), no line width, keys in v3's order
 * (goKeyOrder), and v3's indentation: four spaces, a sequence indented
 * under its key, a mapping in a sequence item two past the dash, and each level below that at the
 * next multiple of four (so `- match:` at 8 has its keys at 12, not 14).
 */
export function writeGoYamlMap(value: JsonValue): string {
  if (isMap(value) && Object.keys(value).length > 0) return mapLines(value, 0);
  if (Array.isArray(value) && value.length > 0) return seqLines(value, 0);
  return `${goScalar(value, { at: 0, content: 4 })}\n`;
}

type JsonMap = { readonly [key: string]: JsonValue };

function isMap(v: JsonValue): v is JsonMap {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** go-yaml v3's next level below one at `indent`: the next multiple of four. */
const below = (indent: number): number => 4 * Math.floor((indent + 4) / 4);

function mapLines(map: JsonMap, indent: number): string {
  const pad = " ".repeat(indent);
  let out = "";
  for (const key of Object.keys(map).sort(goKeyOrder)) {
    const v = map[key] as JsonValue;
    const k = goKey(key);
    if (isMap(v) && Object.keys(v).length > 0) out += `${pad}${k}:\n${mapLines(v, below(indent))}`;
    else if (Array.isArray(v) && v.length > 0) out += `${pad}${k}:\n${seqLines(v, below(indent))}`;
    else out += `${pad}${k}: ${goScalar(v, { at: indent, content: below(indent) })}\n`;
  }
  return out;
}

const LETTER = /^\p{L}$/u;
const DIGIT = /^[0-9]$/;

/**
 * go-yaml v3's order of a map's string keys: character by character; where they first differ, two
 * letters by code point; a letter against another character, the letter first right after a digit
 * and last otherwise; elsewhere the runs of digits starting there by value (`key2` before `key10`),
 * then the shorter run, then by code point. A key that is a prefix of the other comes first.
 */
export function goKeyOrder(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  let afterDigit = false;
  for (let i = 0; i < x.length && i < y.length; i++) {
    const p = x[i] as string;
    const q = y[i] as string;
    if (p === q) {
      afterDigit = DIGIT.test(p);
      continue;
    }
    const pl = LETTER.test(p);
    const ql = LETTER.test(q);
    if (pl && ql) return p < q ? -1 : 1;
    if (pl || ql) return pl === afterDigit ? -1 : 1;
    const pr = digitRun(x, i);
    const qr = digitRun(y, i);
    if (pr.value !== qr.value) return pr.value < qr.value ? -1 : 1;
    if (pr.length !== qr.length) return pr.length - qr.length;
    return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

function digitRun(chars: readonly string[], from: number): { value: number; length: number } {
  let value = 0;
  let i = from;
  while (i < chars.length && DIGIT.test(chars[i] as string)) value = value * 10 + Number(chars[i++]);
  return { value, length: i - from };
}

function seqLines(items: readonly JsonValue[], indent: number): string {
  const pad = " ".repeat(indent);
  let out = "";
  for (const item of items) {
    const nested =
      isMap(item) && Object.keys(item).length > 0
        ? mapLines(item, indent + 2)
        : Array.isArray(item) && item.length > 0
          ? seqLines(item, indent + 2)
          : undefined;
    // A nested collection starts on the dash's line.
    out +=
      nested !== undefined
        ? `${pad}- ${nested.slice(indent + 2)}`
        : `${pad}- ${goScalar(item, { at: indent, content: below(indent + 2) })}\n`;
  }
  return out;
}

/** A key as v3 writes it (quoted when it would read back as something else). */
function goKey(key: string): string {
  const line = stringify({ [key]: 0 }, GO_OPTIONS);
  return line.slice(0, line.lastIndexOf(": 0"));
}

/**
 * A scalar (or an empty collection) as v3 writes a value whose key (or dash) is at column `at`; a
 * block scalar's lines at column `content`, its indentation indicator (when it needs one) that step.
 */
function goScalar(value: JsonValue, indent: { readonly at: number; readonly content: number }): string {
  const text = stringify({ k: value }, { ...GO_OPTIONS, indent: 4 }).slice("k: ".length, -1);
  const pad = " ".repeat(indent.content);
  return text.replace(/^([|>])\d/, `$1${indent.content - indent.at}`).replace(/\n {4}/g, `\n${pad}`);
}

/** go-yaml v2's emitter width: past this column it breaks a flow scalar at its next single space. */
const GO_V2_WIDTH = 80;
/** Text go-yaml v2 calls printable throughout (is_printable: no control character, no U+FEFF, nothing past U+FFFD): it may go in single quotes. */
const GO_V2_PRINTABLE = /^[\n\x20-\x7e\u00a0-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$/;

/**
 * A one-line scalar as go-yaml v2 writes it at `column`, its continuation lines at `indent`: plain
 * or single-quoted (a `'` doubled), broken at a single space once the line is past 80 columns
 * (yaml_emitter_write_plain_scalar/_single_quoted_scalar; a break reads back as that space).
 */
function goV2Folded(value: string, quoted: boolean, at: { column: number; indent: string }): string {
  let out = quoted ? "'" : "";
  let column = at.column + out.length;
  let spaces = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (ch === " ") {
      const inside = !quoted || (i > 0 && i < value.length - 1);
      if (!spaces && column > GO_V2_WIDTH && inside && value[i + 1] !== " ") {
        out += `\n${at.indent}`;
        column = at.indent.length;
      } else {
        out += ch;
        column++;
      }
      spaces = true;
    } else {
      const written = quoted && ch === "'" ? "''" : ch;
      out += written;
      column += written.length;
      spaces = false;
    }
  }
  return quoted ? `${out}'` : out;
}

/**
 * go-yaml v2's choices for a map value on one line: what cannot be plain is single-quoted (a `'`
 * inside too, where the writer above would double-quote it) unless it needs an escape or would read
 * back as another type (double quotes, as above); plain and single-quoted scalars break past 80
 * columns. Keys, flow collections, sequence items and multi-line text are the writer above.
 */
const kubeStringTag: ScalarTag = {
  ...goQuotingStringTag,
  stringify(item, ctx, onComment, onChompKeep) {
    const text = goQuotingStringTag.stringify?.(item, ctx, onComment, onChompKeep) ?? JSON.stringify(item.value);
    const value = item.value;
    const start = ctx.indentAtStart;
    if (typeof value !== "string" || value.includes("\n") || ctx.implicitKey || ctx.inFlow === true) return text;
    if (typeof start !== "number") return text;
    const plain = text === value;
    const quoted =
      text.startsWith("'") ||
      (text.startsWith('"') && value !== "" && !AMBIGUOUS_PLAIN.test(value) && GO_V2_PRINTABLE.test(value));
    if (!plain && !quoted) return text;
    // ctx.indent is the value's continuation indent, one step in from its key; indentAtStart counts from the key.
    const column = Math.max(0, ctx.indent.length - 2) + start;
    return goV2Folded(value, !plain, { column, indent: ctx.indent });
  },
};

/**
 * A JSON-like value as sigs.k8s.io/yaml's `Marshal` (go-yaml v2) writes it, for text that must look
 * like kyverno apply's printed resources and reports: keys sorted (by code unit), a sequence level
 * with its key, go-yaml v2's quoting and line breaks (kubeStringTag).
 */
export function writeKubeYaml(value: JsonValue): string {
  return stringify(value, {
    ...GO_OPTIONS,
    customTags: (tags) => [
      ...tags.map((t) => (typeof t === "object" && t.tag === stringTag.tag ? kubeStringTag : t)),
      ambiguousPlain,
    ],
    indentSeq: false,
    sortMapEntries: true,
  });
}

/** One YAML document (ending in a newline) for a JSON-like value; `comment` becomes a `#` line before it. */
export function writeYaml(value: JsonValue, comment?: string): string {
  const body = stringify(value, OPTIONS);
  return comment === undefined ? body : `${commentLine(comment)}${body}`;
}

/** Documents separated by `---`, each optionally headed by a comment line. */
export function writeYamlStream(docs: readonly { readonly value: JsonValue; readonly comment?: string }[]): string {
  return docs.map((d) => writeYaml(d.value, d.comment)).join("---\n");
}

/**
 * A `#` comment line. A comment ends at any line break a 1.1 or 1.2 reader knows (\n, \r, NEL,
 * U+2028, U+2029), so those and other control characters are written as escapes, never raw.
 */
export function commentLine(text: string): string {
  return `# ${text.replace(/[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]/g, codeEscape)}\n`;
}
