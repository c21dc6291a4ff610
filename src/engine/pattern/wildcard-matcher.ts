/**
 * A wildcard string (`values/wildcard.ts`) compiled once into a test. The common shapes are
 * answered without splitting anything: no wildcard (equality), `*`, `prefix*` and `*suffix`.
 * Any other shape, or a literal part holding a surrogate (where code units and code points could
 * disagree), is left to `wildcardMatch`.
 */
import { hasWildcard, wildcardMatch } from "../values/wildcard.js";

export type WildcardMatcher = (value: string) => boolean;

const PLAIN_PART = /^[^*?\uD800-\uDFFF]*$/;

export function compileWildcard(pattern: string): WildcardMatcher {
  if (pattern === "*") return () => true;
  if (!hasWildcard(pattern)) return (value) => value === pattern;
  const star = pattern.indexOf("*");
  if (star === pattern.length - 1 && PLAIN_PART.test(pattern.slice(0, star))) {
    const prefix = pattern.slice(0, star);
    return (value) => value.startsWith(prefix);
  }
  if (star === 0 && PLAIN_PART.test(pattern.slice(1))) {
    const suffix = pattern.slice(1);
    return (value) => value.endsWith(suffix);
  }
  return (value) => wildcardMatch(pattern, value);
}
