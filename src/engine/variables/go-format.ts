/** Go's `%f`, as it reaches users through Kyverno's messages (`%v` is `goFormatValue` in go/format-value.ts). */

function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  return biased === 0 ? { mantissa: fraction, exponent: -1074 } : { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}

/** `fmt.Sprintf("%f", x)`: six decimals, exact decimal value rounded half to even. */
export function goFormatFixed6(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "+Inf" : "-Inf";
  const { mantissa, exponent } = decompose(x);
  let num = mantissa * 1_000_000n;
  let den = 1n;
  if (exponent >= 0) num <<= BigInt(exponent);
  else den <<= BigInt(-exponent);
  let q = num / den;
  const twice = (num % den) * 2n;
  if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
  const digits = q.toString().padStart(7, "0");
  const text = `${digits.slice(0, -6)}.${digits.slice(-6)}`;
  return x < 0 || Object.is(x, -0) ? `-${text}` : text;
}
