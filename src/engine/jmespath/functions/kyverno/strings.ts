/** String functions: thin wrappers over Go's `strings` package semantics. */
import type { FunctionContext, FunctionDef } from "../../types.js";
import { wildcardMatch } from "../../../values/wildcard.js";
import { numberArg, stringArg } from "./args.js";
import { charge, chargeLength } from "./budget.js";
import { argumentTypeError, functionError } from "./errors.js";
import { compareCodePoints as compareStrings } from "../../../go/strings.js";
import { ifaceToString, runes } from "./go-text.js";
import { goPathClean } from "./go-path.js";

/** Go's `unicode.ToUpper` / `ToLower` on one rune: simple one-to-one case mappings only. */
function mapRune(ch: string, upper: boolean): string {
  if (!upper && ch === "\u0130") return "i";
  const mapped = upper ? ch.toUpperCase() : ch.toLowerCase();
  return [...mapped].length === 1 ? mapped : ch;
}

function mapCase(s: string, upper: boolean): string {
  let out = "";
  for (const ch of s) out += mapRune(ch, upper);
  return out;
}

/** Go's `strings.EqualFold`: equal under simple Unicode case folding, rune by rune. */
function equalFold(a: string, b: string): boolean {
  const x = runes(a);
  const y = runes(b);
  if (x.length !== y.length) return false;
  return x.every((ca, i) => {
    const cb = y[i] ?? "";
    return ca === cb || mapRune(ca, false) === mapRune(cb, false) || mapRune(ca, true) === mapRune(cb, true);
  });
}

/** Go's `strings.Replace`: the first `n` occurrences (all when n < 0); an empty `old` matches between runes. */
function replace(name: string, ctx: FunctionContext, s: string, old: string, repl: string, n: number): string {
  if (old === repl || n === 0) return s;
  chargeLength(name, ctx, s.length + Math.max(0, replacementCount(s, old, n) * (repl.length - old.length)));
  if (old === "") {
    const chars = runes(s);
    const limit = n < 0 ? chars.length + 1 : Math.min(n, chars.length + 1);
    let out = "";
    for (let i = 0; i < chars.length + 1; i++) {
      if (i < limit) out += repl;
      out += chars[i] ?? "";
    }
    return out;
  }
  let out = "";
  let start = 0;
  let done = 0;
  while (n < 0 || done < n) {
    const j = s.indexOf(old, start);
    if (j < 0) break;
    out += s.slice(start, j) + repl;
    start = j + old.length;
    done++;
  }
  return out + s.slice(start);
}

/** How many replacements `replace` will make. */
function replacementCount(s: string, old: string, n: number): number {
  let count = 0;
  if (old === "") count = runes(s).length + 1;
  else for (let at = s.indexOf(old); at >= 0; at = s.indexOf(old, at + old.length)) count++;
  return n < 0 ? count : Math.min(count, n);
}

/** Go's `strings.Trim`: drop runes found in `cutset` from both ends. */
function trim(s: string, cutset: string): string {
  if (s === "" || cutset === "") return s;
  const set = new Set(runes(cutset));
  const chars = runes(s);
  let a = 0;
  let b = chars.length;
  while (a < b && set.has(chars[a] ?? "")) a++;
  while (b > a && set.has(chars[b - 1] ?? "")) b--;
  return chars.slice(a, b).join("");
}

/** Go's `strings.Split`; an empty separator splits into runes. */
function split(s: string, sep: string): string[] {
  return sep === "" ? runes(s) : s.split(sep);
}

/** Go's `int(f)` for a float64 count: truncation; non-finite values act as "all". */
function goInt(f: number): number {
  return Number.isFinite(f) ? Math.trunc(f) : -1;
}

export const stringFunctions: readonly FunctionDef[] = [
  {
    name: "compare",
    args: [{ types: ["string"] }, { types: ["string"] }],
    returns: "number",
    description: "compares two strings lexicographically",
    call: (args) => compareStrings(stringArg("compare", args, 0), stringArg("compare", args, 1)),
  },
  {
    name: "equal_fold",
    args: [{ types: ["string"] }, { types: ["string"] }],
    returns: "boolean",
    description: "allows comparing two strings for equivalency where the only differences are letter cases",
    call: (args) => equalFold(stringArg("equal_fold", args, 0), stringArg("equal_fold", args, 1)),
  },
  {
    name: "replace",
    args: [{ types: ["string"] }, { types: ["string"] }, { types: ["string"] }, { types: ["number"] }],
    returns: "string",
    description:
      "replaces a specified number of instances of the source string with the replacement string in a parent",
    call: (args, ctx) =>
      replace(
        "replace",
        ctx,
        stringArg("replace", args, 0),
        stringArg("replace", args, 1),
        stringArg("replace", args, 2),
        goInt(numberArg("replace", args, 3)),
      ),
  },
  {
    name: "replace_all",
    args: [{ types: ["string"] }, { types: ["string"] }, { types: ["string"] }],
    returns: "string",
    description: "replace all instances of one string with another in an overall parent string",
    call: (args, ctx) =>
      replace(
        "replace_all",
        ctx,
        stringArg("replace_all", args, 0),
        stringArg("replace_all", args, 1),
        stringArg("replace_all", args, 2),
        -1,
      ),
  },
  {
    name: "to_upper",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "takes in a string and outputs the same string with all upper-case letters",
    call: (args) => mapCase(stringArg("to_upper", args, 0), true),
  },
  {
    name: "to_lower",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "takes in a string and outputs the same string with all lower-case letters",
    call: (args) => mapCase(stringArg("to_lower", args, 0), false),
  },
  {
    name: "trim",
    args: [{ types: ["string"] }, { types: ["string"] }],
    returns: "string",
    description: "trims both ends of the source string by characters appearing in the second string",
    call: (args) => trim(stringArg("trim", args, 0), stringArg("trim", args, 1)),
  },
  {
    name: "trim_prefix",
    args: [{ types: ["string"] }, { types: ["string"] }],
    returns: "string",
    description: "trims the second string prefix from the first string if the first string starts with the prefix",
    call: (args) => {
      const s = stringArg("trim_prefix", args, 0);
      const prefix = stringArg("trim_prefix", args, 1);
      return s.startsWith(prefix) ? s.slice(prefix.length) : s;
    },
  },
  {
    name: "split",
    args: [{ types: ["string"] }, { types: ["string"] }],
    returns: "array[string]",
    description: "splits the first string when the second string is found and converts it into an array",
    call: (args, ctx) => {
      const parts = split(stringArg("split", args, 0), stringArg("split", args, 1));
      charge(ctx, parts.length);
      return parts;
    },
  },
  {
    name: "truncate",
    args: [{ types: ["string"] }, { types: ["number"] }],
    returns: "string",
    description: "cuts the string to at most the given number of characters; a negative length means 0",
    call: (args) => {
      const s = stringArg("truncate", args, 0);
      const length = numberArg("truncate", args, 1);
      const n = length < 0 ? 0 : Math.trunc(length);
      const chars = runes(s);
      return chars.length <= n ? s : chars.slice(0, n).join("");
    },
  },
  {
    name: "to_boolean",
    args: [{ types: ["string"] }],
    returns: "boolean",
    description: "returns true or false for any string such as 'True', 'TruE', 'False', 'FAlse', 'faLSE'",
    call: (args) => {
      const s = stringArg("to_boolean", args, 0);
      const lower = mapCase(s, false);
      if (lower === "true") return true;
      if (lower === "false") return false;
      throw functionError("to_boolean", `lowercase argument must be 'true' or 'false' (provided: '${s}')`);
    },
  },
  {
    name: "path_canonicalize",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "normalizes or canonicalizes a given path by removing excess slashes",
    call: (args) => {
      const p = stringArg("path_canonicalize", args, 0);
      return p === "" ? "" : goPathClean(p);
    },
  },
  {
    name: "pattern_match",
    args: [{ types: ["string"] }, { types: ["string", "number"] }],
    returns: "boolean",
    description: "'*' matches zero or more characters, '?' matches exactly one character; the whole string must match",
    call: (args) => {
      // Kyverno reports these under the name regex_match (a copy-paste in its source).
      const pattern = stringArg("regex_match", args, 0);
      const value = ifaceToString(args[1]);
      if (value === undefined) throw argumentTypeError("regex_match", 2, "String or Real");
      return wildcardMatch(pattern, value);
    },
  },
];
