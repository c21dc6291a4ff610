/**
 * Go's `%f` (`strconv.FormatFloat(x, 'f', 6, 64)`): six decimals of the exact binary value, a tie
 * rounded half to even. Kyverno's messages and pattern comparisons print floats this way.
 */

/** `fmt.Sprintf("%f", x)`, e.g. `1.500000`, `0.007812` (a tie), `-0.000000`. */
export function goFormatFixed(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "+Inf" : "-Inf";
  const abs = Math.abs(x);
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  // JS's toFixed rounds the exact value to nearest too, but a tie away from zero. Only a value
  // within a hair of a tie (or too large for the check) takes the exact path, which decides ties.
  if (abs < 1e6) {
    const scaled = abs * 1e6;
    if (Math.abs(scaled - Math.floor(scaled) - 0.5) > 1e-3) return sign + abs.toFixed(6);
  }
  return sign + exactFixed6(abs);
}

/** The exact decimal value of a non-negative finite double, rounded to six decimals, half to even. */
function exactFixed6(abs: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, abs);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = biased === 0 ? -1074 : biased - 1075;
  let num = mantissa * 1_000_000n;
  let den = 1n;
  if (exponent >= 0) num <<= BigInt(exponent);
  else den <<= BigInt(-exponent);
  let q = num / den;
  const twice = (num % den) * 2n;
  if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  const digits = q.toString().padStart(7, "0");
  return `${digits.slice(0, -6)}.${digits.slice(-6)}`;
}
