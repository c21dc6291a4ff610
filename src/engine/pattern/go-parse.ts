/** Go `strconv` number parsing, as pattern leaves use it on string values. */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go `strconv.ParseInt(s, 10, 64)`: optional sign, ASCII digits only, within int64. */
export function parseGoInt(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s.startsWith("+") ? s.slice(1) : s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

const DECIMAL_FLOAT = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const HEX_FLOAT = /^([+-]?)0[xX]((?:[0-9a-fA-F_]*)\.?(?:[0-9a-fA-F_]*))[pP]([+-]?[0-9_]+)$/;
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/**
 * Go `strconv.ParseFloat(s, 64)`: decimal or hexadecimal (`0x1p-2`) forms, `inf`/`infinity`/`nan`
 * in any case; out-of-range values are errors. Underscores are accepted only with a base prefix.
 */
export function parseGoFloat(s: string): number | undefined {
  const special = SPECIAL.exec(s);
  if (special !== null) {
    if ((special[2] ?? "").toLowerCase() === "nan") return Number.NaN;
    return special[1] === "-" ? -Infinity : Infinity;
  }
  const hex = HEX_FLOAT.exec(s);
  if (hex !== null) return parseHexFloat(hex[1] ?? "", hex[2] ?? "", hex[3] ?? "");
  if (!DECIMAL_FLOAT.test(s)) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

function parseHexFloat(sign: string, mantissa: string, exponent: string): number | undefined {
  const m = mantissa.replace(/_/g, "");
  const [intPart = "", fracPart = ""] = m.split(".");
  if (intPart === "" && fracPart === "") return undefined;
  let value = 0;
  for (const c of intPart + fracPart) value = value * 16 + parseInt(c, 16);
  const exp = Number(exponent.replace(/_/g, "")) - 4 * fracPart.length;
  const n = value * 2 ** exp;
  if (!Number.isFinite(n)) return undefined;
  return sign === "-" ? -n : n;
}
