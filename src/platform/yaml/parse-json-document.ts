import { parseDocuments, tooLarge } from "./parse-documents.js";
import { DEFAULT_LIMITS, type LoadedDocument, type ParseLimits } from "./types.js";

/** Exponents that overflow to Infinity in JSON.parse; go-yaml keeps such numbers as strings. */
const HUGE_EXPONENT = /\d[eE]\+?\d{3}/;

/**
 * Read a `.json` file: one JSON value, one document. JSON.parse is the fast path; when it fails
 * (or a number would overflow) the text is read as YAML, which is what Kubernetes does with JSON
 * anyway, so the result is the same and errors name a line and column.
 */
export function parseJsonDocument(text: string, source: string, limits: ParseLimits = {}): LoadedDocument[] {
  const maxBytes = limits.maxBytes ?? DEFAULT_LIMITS.maxBytes;
  if (text.length > maxBytes) return [tooLarge(source, text.length, maxBytes)];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!HUGE_EXPONENT.test(body)) {
    try {
      const value: unknown = JSON.parse(body);
      const base = { source, index: 0, line: 1 };
      return [value === null ? base : { ...base, value: value as NonNullable<LoadedDocument["value"]> }];
    } catch {
      // not strict JSON: fall through to the YAML reader
    }
  }
  return parseDocuments(body, source, limits);
}
