/**
 * Strings that YAML writers get wrong: words and numbers a YAML 1.1 or 1.2 reader resolves to
 * something else, indicators, comment and key markers, control characters, line separators,
 * unicode, very long lines and multi-line text; plus a seeded set built from the pieces such
 * strings are made of. Lone surrogates are left out: no UTF-8 file can hold one.
 */
import type { JsonObject } from "../../src/engine/index.js";
import { seededRandom } from "./seeded-random.js";

const WORDS = ["y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf"];

/** Every letter-case variant of a short word (yes, Yes, yEs, …). */
function caseVariants(word: string): string[] {
  let out = [""];
  for (const ch of word)
    out = out.flatMap((p) =>
      ch.toLowerCase() === ch.toUpperCase() ? [p + ch] : [p + ch.toLowerCase(), p + ch.toUpperCase()],
    );
  return out;
}

const NUMBERS = [
  "0",
  "-0",
  "+0",
  "1",
  "+1",
  "-1",
  "0755",
  "0o17",
  "0O17",
  "0x1F",
  "0X1f",
  "0b101",
  "0B11",
  "-0x1F",
  "+0o7",
  "089",
  "1_000",
  "1__0",
  "+_1",
  "-_1",
  "0x_1F",
  "1_",
  "1e3",
  "1E3",
  "1e+3",
  "1e-3",
  "1.5e3",
  "-1.5E-3",
  ".5",
  "-.5",
  "+.5",
  "1.",
  "-1.",
  "0.1",
  "1_0.5",
  "1e_3",
  ".inf",
  ".Inf",
  ".INF",
  "+.inf",
  "-.inf",
  "-.Inf",
  ".nan",
  ".NaN",
  ".NAN",
  "-.nan",
  "1:20",
  "-1:20",
  "190:20:30",
  "190:20:30.15",
  "1:2:3:4",
  "12345678901234567890",
  "99999999999999999999999",
  "9223372036854775808",
  "-9223372036854775809",
  "1e400",
  "0x",
  "0o",
  "0b",
  "1e",
  "1_e3",
  "1.2.3",
  "10.0.0.1",
  "0.0.0.0",
  "1-2",
  "1+2",
  "1 000",
  "٣",
  "１２３",
];

const TIMESTAMPS = [
  "2001-12-14",
  "2001-12-14t21:59:43.10-05:00",
  "2001-12-14T21:59:43.10Z",
  "2001-12-14 21:59:43.10 -5",
  "2001-12-15 2:59:43.10",
  "2002-1-1",
  "2001-12-14\t21:59:43.10",
  "1999-99-99",
  "2024-02-30",
  "2001-12-14 release",
];

const STRUCTURE = [
  "",
  " ",
  "  ",
  "\t",
  " lead",
  "trail ",
  " both ",
  "\tlead",
  "trail\t",
  "~",
  "=",
  "<<",
  "<<: x",
  "a: b",
  "a:",
  ":a",
  "a :b",
  "a#b",
  "a #b",
  "#a",
  "- a",
  "-",
  "--",
  "---",
  "--- a",
  "...",
  "... a",
  "? a",
  "?",
  ": a",
  ":",
  "[a]",
  "]",
  "{a: b}",
  "}",
  ",",
  "a, b",
  "&a",
  "*a",
  "!a",
  "!!str",
  "|",
  "|-",
  ">",
  ">+",
  "'a'",
  "'",
  '"a"',
  '"',
  "%YAML 1.1",
  "%",
  "@a",
  "`a",
  "a'b",
  'a"b',
  "a\\b",
  "\\",
  "\\n",
  "C:\\path",
  "http://x:80/a?b#c",
  "a\u00a0",
  "\u00a0a",
  "nginx:1.25",
  "app.kubernetes.io/name",
  "{{ request.object.metadata.name }}",
  "$(VAR)",
  "*.example.com",
  "!= x",
];

const CONTROL: string[] = [];
for (let c = 0; c < 0x20; c++) CONTROL.push(String.fromCharCode(c), `a${String.fromCharCode(c)}b`);
for (let c = 0x7f; c <= 0x9f; c++) CONTROL.push(String.fromCharCode(c), `a${String.fromCharCode(c)}b`);

const UNICODE = [
  "\u2028",
  "a\u2028b",
  "\u2029",
  "a\u2029b",
  "\u0085",
  "\ufeff",
  "a\ufeffb",
  "\ufffe",
  "\uffff",
  "\ufffd",
  "é",
  "日本語",
  "🙂",
  "a🙂b",
  "\u{10ffff}",
  "\u200b",
  "\u202e",
  "e\u0301",
  "ﷺ",
  "\ue000",
  "Ω≈ç√",
  "\u3000a\u3000",
];

const MULTILINE = [
  "a\nb",
  "a\nb\n",
  "a\nb\n\n",
  "\na",
  "\n",
  "\n\n",
  "a\n",
  " a\nb",
  "a\n b",
  "a \nb",
  "a\n\nb",
  "a\r\nb",
  "a\rb",
  "\ta\nb",
  "a\n\tb",
  "\n\ta",
  "a\n\t",
  "\t\n",
  "\t\ta\n\tb",
  " \ta\nb",
  "\n \ta",
  " \n",
  "\n \n",
  " \t\n",
  "\n  \n  \na",
  "  \n\na\n",
  "a\n#b",
  "a\n- b",
  "a\n---\nb",
  "a\n...\nb",
  "---\na",
  "line1\nline2  ",
  "  \n  ",
  "a\n  \nb",
  "key: value\nother: [1, 2]\n",
  "a\n\u2028b",
  "#!/bin/sh\necho hi\n",
];

const LONG = [
  "x".repeat(5000),
  "word ".repeat(2000),
  `${"y".repeat(3000)} # not a comment`,
  "a: ".repeat(500),
  `${"long line ".repeat(300)}\n${"second ".repeat(300)}`,
];

/** The fixed set: every case above, the reserved words in every letter case. */
export function fixedHostileStrings(): string[] {
  return [
    ...WORDS.flatMap(caseVariants),
    ...NUMBERS,
    ...TIMESTAMPS,
    ...STRUCTURE,
    ...CONTROL,
    ...UNICODE,
    ...MULTILINE,
    ...LONG,
  ];
}

/** The pieces the seeded strings are made of: number, word, indicator and whitespace parts. */
const PIECES = [
  "0",
  "1",
  "7",
  "9",
  "_",
  "+",
  "-",
  ".",
  "e",
  "E",
  "x",
  "X",
  "o",
  "O",
  "b",
  "B",
  ":",
  "::",
  " ",
  "  ",
  "\t",
  "\n",
  "\r",
  "#",
  " #",
  ": ",
  "~",
  "y",
  "Y",
  "n",
  "N",
  "yes",
  "no",
  "on",
  "off",
  "true",
  "NULL",
  "inf",
  "nan",
  "<<",
  "=",
  "'",
  '"',
  "\\",
  "?",
  "[",
  "]",
  "{",
  "}",
  ",",
  "&",
  "*",
  "!",
  "|",
  ">",
  "%",
  "@",
  "`",
  "---",
  "...",
  "\u2028",
  "\u0085",
  "\u00a0",
  "\ufeff",
  "\x7f",
  "\x00",
  "é",
  "🙂",
  "2001-12-14",
  "T",
  "t",
  "Z",
];

/**
 * `count` strings, the same for the same seed, in turn: 1–8 random PIECES; number-like (any
 * notation, underscores and letter cases mixed in, sometimes one character added), most of which
 * some YAML reader resolves to a number; and short lines of spaces, tabs and indicators, where
 * block scalars go wrong.
 */
export function seededHostileStrings(count: number, seed = 23): string[] {
  const random = seededRandom(seed);
  const pick = (xs: string): string => xs[Math.floor(random() * xs.length)] ?? "";
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 3 === 0) {
      const n = 1 + Math.floor(random() * 8);
      let s = "";
      for (let j = 0; j < n; j++) s += PIECES[Math.floor(random() * PIECES.length)] ?? "";
      out.push(s);
    } else if (i % 3 === 1) out.push(numberLike(random, pick));
    else {
      let s = "";
      for (let n = 1 + Math.floor(random() * 10); n > 0; n--) s += pick("  \t\n\n\na#-:'\"|>");
      out.push(s);
    }
  }
  return out;
}

function numberLike(random: () => number, pick: (xs: string) => string): string {
  const digits = (alphabet: string, max: number): string => {
    let s = "";
    for (let n = 1 + Math.floor(random() * max); n > 0; n--) s += pick(alphabet) + (random() < 0.15 ? "_" : "");
    return s;
  };
  const dec = "0123456789";
  let s = ["", "", "+", "-", "+_", "-_"][Math.floor(random() * 6)] ?? "";
  switch (Math.floor(random() * 6)) {
    case 0:
      s += `0${pick("xX")}${digits("0123456789abcdefABCDEF", 4)}`;
      break;
    case 1:
      s += `0${pick("oO")}${digits("01234567", 4)}`;
      break;
    case 2:
      s += `0${pick("bB")}${digits("01", 6)}`;
      break;
    case 3:
      s += digits(dec, 5);
      break;
    case 4:
      s += `${random() < 0.3 ? "" : digits(dec, 3)}.${random() < 0.3 ? "" : digits(dec, 3)}`;
      if (random() < 0.5) s += `${pick("eE")}${["", "+", "-"][Math.floor(random() * 3)] ?? ""}${digits(dec, 2)}`;
      break;
    default:
      s += `${digits(dec, 3)}:${pick("012345")}${pick(dec)}${random() < 0.5 ? `:${pick("012345")}${pick(dec)}` : ""}${random() < 0.3 ? `.${digits(dec, 2)}` : ""}`;
  }
  if (random() < 0.2) {
    const at = Math.floor(random() * (s.length + 1));
    s = s.slice(0, at) + pick("_ .:eE+-xob#") + s.slice(at);
  }
  return s;
}

/**
 * Kubernetes objects (ConfigMaps) carrying the strings as values and as keys, in maps, lists and
 * nested maps, `perObject` strings each.
 */
export function hostileObjects(strings: readonly string[], perObject = 50): JsonObject[] {
  const out: JsonObject[] = [];
  for (let i = 0; i < strings.length; i += perObject) {
    const chunk = strings.slice(i, i + perObject);
    const data: Record<string, string> = {};
    const keyed: Record<string, string> = {};
    const nested: Record<string, Record<string, string[]>> = {};
    chunk.forEach((s, j) => {
      data[`v${j}`] = s;
      keyed[s] = `k${j}`;
      nested[s] = { [s]: [s, `${s}${s}`] };
    });
    out.push({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: `hostile-${i / perObject}`, labels: { [chunk[0] ?? ""]: chunk[1] ?? "" } },
      data,
      keyed,
      list: chunk,
      nested,
    });
  }
  return out;
}
