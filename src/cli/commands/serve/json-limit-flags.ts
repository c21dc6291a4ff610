/** `--max-json-depth`, `--max-json-entries`, `--max-json-values`: what one request body may hold, checked before it is parsed. */
import { DEFAULT_JSON_LIMITS, type JsonLimits } from "../../../server/http/index.js";

export const JSON_LIMIT_FLAG_OPTIONS = {
  "max-json-depth": { type: "string", default: String(DEFAULT_JSON_LIMITS.maxDepth) },
  "max-json-entries": { type: "string", default: String(DEFAULT_JSON_LIMITS.maxEntries) },
  "max-json-values": { type: "string", default: String(DEFAULT_JSON_LIMITS.maxValues) },
} as const;

type Values = { readonly [K in keyof typeof JSON_LIMIT_FLAG_OPTIONS]?: string | undefined };

/** The limits the flags give (the defaults where one is not given); or what is wrong with one. */
export function jsonLimitsFrom(values: Values): { ok: true; value: JsonLimits } | { ok: false; error: string } {
  const read = (flag: keyof typeof JSON_LIMIT_FLAG_OPTIONS, fallback: number): number | string => {
    const text = values[flag];
    if (text === undefined) return fallback;
    const n = Number(text);
    return Number.isSafeInteger(n) && n > 0 && text.trim() !== ""
      ? n
      : `--${flag} must be a positive whole number (got ${JSON.stringify(text)})`;
  };
  const maxDepth = read("max-json-depth", DEFAULT_JSON_LIMITS.maxDepth);
  const maxEntries = read("max-json-entries", DEFAULT_JSON_LIMITS.maxEntries);
  const maxValues = read("max-json-values", DEFAULT_JSON_LIMITS.maxValues);
  for (const v of [maxDepth, maxEntries, maxValues]) if (typeof v === "string") return { ok: false, error: v };
  return {
    ok: true,
    value: { maxDepth: maxDepth as number, maxEntries: maxEntries as number, maxValues: maxValues as number },
  };
}
