/**
 * JSON pointers (RFC 6901) as evanphx/json-patch reads them: tokens are split on "/" and
 * `~1` → "/", `~0` → "~" are decoded; any other "~" is kept as written (Go's strings.Replacer
 * does not reject it). Array indices are read with Go's `strconv.Atoi`.
 */
import { err, ok, type Result } from "../../api/result.js";

export function escapePointerToken(s: string): string {
  return s.replaceAll("~", "~0").replaceAll("/", "~1");
}

export function unescapePointerToken(token: string): string {
  return token.replace(/~[01]/g, (m) => (m === "~1" ? "/" : "~"));
}

/** The tokens of a pointer as written (still escaped); [] for "". Undefined if not a pointer. */
export function rawPointerTokens(p: string): string[] | undefined {
  if (p === "") return [];
  if (!p.startsWith("/")) return undefined;
  return p.slice(1).split("/");
}

/** The decoded tokens of a pointer; "" is the whole document and gives []. */
export function parsePointer(p: string): Result<string[]> {
  const raw = rawPointerTokens(p);
  if (raw === undefined) {
    return err("json-pointer", `a JSON pointer must be "" or start with "/" (got ${JSON.stringify(p)})`);
  }
  return ok(raw.map(unescapePointerToken));
}

export function formatPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${escapePointerToken(t)}`).join("");
}

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

/** Go `strconv.Atoi` on a 64-bit platform: optional sign, decimal digits. Undefined if invalid. */
export function parseGoIndex(token: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(token)) return undefined;
  const big = BigInt(token);
  if (big > INT64_MAX || big < INT64_MIN) return undefined;
  return Number(big);
}
