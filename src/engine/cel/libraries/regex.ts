/**
 * Regular expressions, always RE2 (re2js), never JavaScript RegExp: the standard `matches`,
 * Kubernetes' regex library (`find`, `findAll`) and cel-go's ext.Regex v1 (`regex.replace`,
 * `regex.extract`, `regex.extractAll`). Patterns are compiled once and cached per environment
 * (values/regex-cache.ts).
 */
import { Optional } from "@marcbachmann/cel-js";
import type { RE2JS } from "re2js";
import { CelFunctionError, namespace, type CelLibrary } from "../library.js";
import { regexCache } from "../../values/regex-cache.js";

/** The name `matches` calls are bound to at compile time (create-cel.ts `useRe2`). */
export const RE2_MATCHES = "bylawRe2Matches";

/** Compiles through the shared cache; an invalid pattern is the function's error. */
function regexCompiler(): (pattern: string) => RE2JS {
  const compile = regexCache();
  return (pattern) => {
    const re = compile(pattern);
    if (typeof re === "string") throw new CelFunctionError(`error parsing regexp: ${re}`);
    return re;
  };
}

function findAll(re: RE2JS, s: string, limit: number): string[] {
  const out: string[] = [];
  const m = re.matcher(s);
  let from = 0;
  while ((limit < 0 || out.length < limit) && from <= s.length && m.find(from)) {
    out.push(m.group() ?? "");
    from = m.end() > m.start() ? m.end() : m.end() + 1;
  }
  return out;
}

/** cel-go's replacement text: `\1`…`\9` are groups, `\\` a backslash. */
function expandReplacement(repl: string, m: { group(i: number): string | null }, groups: number): string {
  return repl.replace(/\\(\\|\d)/g, (_all, g: string) => {
    if (g === "\\") return "\\";
    const i = Number(g);
    if (i > groups)
      throw new CelFunctionError(`invalid replacement string: \\${g} refers to a group that does not exist`);
    return m.group(i) ?? "";
  });
}

function replace(re: RE2JS, s: string, repl: string, count: number): string {
  if (count === 0) return s;
  const m = re.matcher(s);
  let out = "";
  let last = 0;
  let from = 0;
  let n = 0;
  while ((count < 0 || n < count) && from <= s.length && m.find(from)) {
    out += s.slice(last, m.start()) + expandReplacement(repl, m, re.groupCount());
    last = m.end();
    from = m.end() > m.start() ? m.end() : m.end() + 1;
    if (m.end() === m.start() && m.start() < s.length) {
      out += s.slice(m.start(), m.start() + 1);
      last = m.start() + 1;
    }
    n++;
  }
  return out + s.slice(last);
}

export function regexLibraries(): CelLibrary[] {
  const compile = regexCompiler();
  const matches = (s: string, p: string): boolean => compile(p).matcher(s).find();
  const extract = (s: string, p: string): unknown => {
    const re = compile(p);
    if (re.groupCount() > 1) throw new CelFunctionError(`regular expression has more than one capturing group: ${p}`);
    const m = re.matcher(s);
    if (!m.find()) return Optional.none();
    return Optional.of((re.groupCount() === 1 ? m.group(1) : m.group()) ?? "");
  };
  const extractAll = (s: string, p: string): string[] => {
    const re = compile(p);
    if (re.groupCount() > 1) throw new CelFunctionError(`regular expression has more than one capturing group: ${p}`);
    const out: string[] = [];
    const m = re.matcher(s);
    let from = 0;
    while (from <= s.length && m.find(from)) {
      const v = re.groupCount() === 1 ? m.group(1) : m.group();
      if (v !== null) out.push(v);
      from = m.end() > m.start() ? m.end() : m.end() + 1;
    }
    return out;
  };
  return [
    {
      name: "RE2 matches",
      functions: [
        { signature: `string.${RE2_MATCHES}(string): bool`, handler: matches },
        { signature: `${RE2_MATCHES}(string, string): bool`, handler: matches },
      ],
    },
    {
      name: "k8s.Regex",
      functions: [
        {
          signature: "string.find(string): string",
          handler: (s: string, p: string) => findAll(compile(p), s, 1)[0] ?? "",
        },
        {
          signature: "string.findAll(string): list<string>",
          handler: (s: string, p: string) => findAll(compile(p), s, -1),
        },
        {
          signature: "string.findAll(string, int): list<string>",
          handler: (s: string, p: string, n: bigint) => findAll(compile(p), s, Number(n)),
        },
      ],
    },
    {
      name: "ext.Regex(v1)",
      ...namespace("regex", "bylaw.RegexNamespace"),
      functions: [
        {
          signature: "bylaw.RegexNamespace.replace(string, string, string): string",
          handler: (_: unknown, s: string, p: string, r: string) => replace(compile(p), s, r, -1),
        },
        {
          signature: "bylaw.RegexNamespace.replace(string, string, string, int): string",
          handler: (_: unknown, s: string, p: string, r: string, n: bigint) => replace(compile(p), s, r, Number(n)),
        },
        {
          signature: "bylaw.RegexNamespace.extract(string, string): optional<string>",
          handler: (_: unknown, s: string, p: string) => extract(s, p),
        },
        {
          signature: "bylaw.RegexNamespace.extractAll(string, string): list<string>",
          handler: (_: unknown, s: string, p: string) => extractAll(s, p),
        },
      ],
    },
  ];
}
