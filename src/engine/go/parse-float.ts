/**
 * Go's `strconv.ParseFloat(s, 64)`, which `to_number` uses. It differs from JavaScript's Number():
 * no surrounding spaces, no empty string, `Inf`/`Infinity`/`NaN` in any case, hexadecimal
 * mantissas with a `p` exponent, `_` digit separators, and out-of-range values are errors.
 */

const DECIMAL = /^[+-]?(?:\d[\d_]*(?:\.[\d_]*)?|\.[\d_]+)(?:[eE][+-]?[\d_]+)?$/;
const HEX = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[\d_]+)$/;

/** Go's `underscoreOK`: `_` only between digits, or between a base prefix and a digit. */
function underscoreOk(s: string): boolean {
  let body = s;
  if (body.startsWith("+") || body.startsWith("-")) body = body.slice(1);
  let saw = "^";
  let i = 0;
  let hex = false;
  if (body.length >= 2 && body[0] === "0" && "bBoOxX".includes(body.charAt(1))) {
    i = 2;
    saw = "0";
    hex = body.charAt(1).toLowerCase() === "x";
  }
  for (; i < body.length; i++) {
    const ch = body.charAt(i);
    if ((ch >= "0" && ch <= "9") || (hex && /[a-fA-F]/.test(ch))) {
      saw = "0";
      continue;
    }
    if (ch === "_") {
      if (saw !== "0") return false;
      saw = "_";
      continue;
    }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}

function special(s: string): number | undefined {
  const lower = s.toLowerCase();
  const unsigned = lower.startsWith("+") || lower.startsWith("-") ? lower.slice(1) : lower;
  const sign = lower.startsWith("-") ? -1 : 1;
  if (unsigned === "inf" || unsigned === "infinity") return sign * Infinity;
  if (lower === "nan") return NaN;
  return undefined;
}

function parseHex(m: RegExpExecArray): number | undefined {
  const [, sign = "", intPart = "", fracPart = "", expPart = "0"] = m;
  const int = intPart.replaceAll("_", "");
  const frac = fracPart.replaceAll("_", "");
  if (int.length + frac.length === 0) return undefined;
  const mantissa = BigInt("0x" + (int + frac || "0"));
  const exp = Number(expPart.replaceAll("_", "")) - 4 * frac.length;
  let value = Number(mantissa) * 2 ** exp;
  if (!Number.isFinite(value) && mantissa !== 0n) {
    // 2 ** exp may overflow while the product would not: scale in two steps.
    const half = Math.trunc(exp / 2);
    value = Number(mantissa) * 2 ** half * 2 ** (exp - half);
  }
  if (!Number.isFinite(value)) return undefined;
  return sign === "-" ? -value : value;
}

/** Returns the parsed float64, or undefined where Go returns an error (syntax or range). */
export function goParseFloat(s: string): number | undefined {
  const sp = special(s);
  if (sp !== undefined) return sp;
  if (s.includes("_") && !underscoreOk(s)) return undefined;
  const hex = HEX.exec(s);
  if (hex !== null) return parseHex(hex);
  if (!DECIMAL.test(s)) return undefined;
  const value = Number(s.replaceAll("_", ""));
  return Number.isFinite(value) ? value : undefined;
}
