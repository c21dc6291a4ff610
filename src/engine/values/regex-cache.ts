/**
 * RE2 expressions (re2js) compiled once per pattern text, for the regex functions of JMESPath and
 * CEL: a policy's pattern is usually a literal, and compiling it at every call cost about 4 % of the
 * CPU of a review with the policy library loaded. Bounded: at most `max` patterns are kept (the
 * whole cache is dropped when it is full), and a pattern longer than `maxPatternLength` is compiled
 * at each call and not kept, so patterns taken from a request cannot grow memory. A pattern that does
 * not compile keeps its error text (Go's `error parsing regexp: …`), cached like a compiled one.
 */
import { RE2JS } from "re2js";

interface RegexCacheOptions {
  /** Patterns kept at most (default 500). */
  readonly max?: number;
  /** Longest pattern kept, in UTF-16 code units (default 4,096). */
  readonly maxPatternLength?: number;
}

/** A compiler of patterns: the compiled expression, or the text of the error that stopped it. */
type RegexCompiler = (pattern: string) => RE2JS | string;

export function regexCache(options: RegexCacheOptions = {}): RegexCompiler {
  const max = options.max ?? 500;
  const longest = options.maxPatternLength ?? 4096;
  const cache = new Map<string, RE2JS | string>();
  return (pattern) => {
    const hit = cache.get(pattern);
    if (hit !== undefined) return hit;
    const compiled = compileRegex(pattern);
    if (pattern.length <= longest) {
      if (cache.size >= max) cache.clear();
      cache.set(pattern, compiled);
    }
    return compiled;
  };
}

function compileRegex(pattern: string): RE2JS | string {
  try {
    return RE2JS.compile(pattern);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
