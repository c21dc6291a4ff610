/** Regular-expression functions, with Go RE2 semantics (via re2js) and Go's `ReplaceAll` rules. */
import type { RE2JS } from "re2js";
import type { FunctionArg, FunctionContext, FunctionDef } from "../../types.js";
import { charge, checkLength } from "./budget.js";
import { stringArg } from "./args.js";
import { argumentTypeError, functionError, goError } from "./errors.js";
import { ifaceToString } from "./go-text.js";
import { regexCache } from "../../../values/regex-cache.js";

/** Compiles a Go regexp once per pattern; a syntax error keeps Go's text (`error parsing regexp: …`). */
const compile = regexCache();

type Match = readonly number[];

/** Go's `replaceAll` loop: non-overlapping matches, skipping an empty match right after a match. */
function replaceAll(name: string, ctx: FunctionContext, re: RE2JS, src: string, repl: (m: Match) => string): string {
  const groups = re.groupCount();
  const m = re.matcher(src);
  let out = "";
  let lastMatchEnd = 0;
  let searchPos = 0;
  while (searchPos <= src.length && m.find(searchPos)) {
    const match: number[] = [];
    for (let g = 0; g <= groups; g++) match.push(m.start(g), m.end(g));
    const [start = 0, end = 0] = match;
    out += src.slice(lastMatchEnd, start);
    if (end > lastMatchEnd || start === 0) {
      const r = repl(match);
      checkLength(name, ctx, out.length + r.length);
      charge(ctx, r.length);
      out += r;
    }
    lastMatchEnd = end;
    const cp = src.codePointAt(searchPos);
    const width = cp === undefined ? 0 : cp > 0xffff ? 2 : 1;
    if (searchPos + width > end) searchPos += width;
    else if (searchPos + 1 > end) searchPos++;
    else searchPos = end;
  }
  return out + src.slice(lastMatchEnd);
}

const NAME_CHAR = /[\p{L}\p{Nd}_]/u;

/** Go's `Regexp.Expand` template: `$1`, `${1}`, `$name`, `${name}`, `$$`. */
function expand(template: string, src: string, match: Match, names: Record<string, number>): string {
  let out = "";
  let t = template;
  for (;;) {
    const dollar = t.indexOf("$");
    if (dollar < 0) break;
    out += t.slice(0, dollar);
    t = t.slice(dollar + 1);
    if (t.startsWith("$")) {
      out += "$";
      t = t.slice(1);
      continue;
    }
    const ref = extractReference(t);
    if (ref === undefined) {
      out += "$";
      continue;
    }
    t = ref.rest;
    const index = ref.num >= 0 ? ref.num : names[ref.name];
    if (index === undefined) continue;
    const start = match[2 * index];
    const end = match[2 * index + 1];
    if (start !== undefined && end !== undefined && start >= 0) out += src.slice(start, end);
  }
  return out + t;
}

function extractReference(str: string): { name: string; num: number; rest: string } | undefined {
  let s = str;
  const brace = s.startsWith("{");
  if (brace) s = s.slice(1);
  let i = 0;
  for (const ch of s) {
    if (!NAME_CHAR.test(ch)) break;
    i += ch.length;
  }
  if (i === 0) return undefined;
  const name = s.slice(0, i);
  if (brace) {
    if (s[i] !== "}") return undefined;
    i++;
  }
  let num = /^[0-9]+$/.test(name) ? 0 : -1;
  if (num === 0) {
    for (const d of name) {
      if (num >= 1e8) {
        num = -1;
        break;
      }
      num = num * 10 + Number(d);
    }
  }
  if (name.length > 1 && name.startsWith("0")) num = -1;
  return { name, num, rest: s.slice(i) };
}

function stringOrNumber(name: string, args: readonly FunctionArg[], index: number): string {
  const s = ifaceToString(args[index]);
  if (s === undefined) throw argumentTypeError(name, index + 1, "String or Real");
  return s;
}

function replaceFunction(name: string, literal: boolean, description: string): FunctionDef {
  return {
    name,
    args: [{ types: ["string"] }, { types: ["string", "number"] }, { types: ["string", "number"] }],
    returns: "string",
    description,
    call: (args, ctx) => {
      const pattern = stringArg(name, args, 0);
      const src = stringOrNumber(name, args, 1);
      const repl = stringOrNumber(name, args, 2);
      const re = compile(pattern);
      if (typeof re === "string") throw functionError(name, re);
      const names = re.namedGroups();
      return replaceAll(name, ctx, re, src, (m) => (literal ? repl : expand(repl, src, m, names)));
    },
  };
}

export const regexFunctions: readonly FunctionDef[] = [
  replaceFunction(
    "regex_replace_all",
    false,
    "replaces every match of the regular expression; $1 or ${name} in the replacement expands to a capture group",
  ),
  replaceFunction(
    "regex_replace_all_literal",
    true,
    "replaces every match of the regular expression with the replacement taken literally",
  ),
  {
    name: "regex_match",
    args: [{ types: ["string"] }, { types: ["string", "number"] }],
    returns: "boolean",
    description:
      "first string is the regular expression which is compared with second input which can be a number or string",
    call: (args) => {
      const pattern = stringArg("regex_match", args, 0);
      const src = stringOrNumber("regex_match", args, 1);
      const re = compile(pattern);
      if (typeof re === "string") throw goError(re);
      return re.matcher(src).find();
    },
  },
];
