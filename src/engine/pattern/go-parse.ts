/** Go `strconv.ParseInt`, as pattern leaves use it on string values (`ParseFloat` is `goParseFloat` in ../go). */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go `strconv.ParseInt(s, 10, 64)`: optional sign, ASCII digits only, within int64. */
export function parseGoInt(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s.startsWith("+") ? s.slice(1) : s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}
