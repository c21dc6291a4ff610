/**
 * Go's `strconv.FormatFloat` for float32 (`bitSize` 32): the shortest digits that read back to the
 * same float32, in `'f'` form (Kyverno's ifaceToString) and `'g'` form (sigs.k8s.io/yaml map keys).
 */

/** Shortest decimal digits of `v` that read back to `v` under `roundTrip`; v must be finite, non-zero. */
function shortestDigits(
  v: number,
  roundTrip: (n: number) => number,
  maxDigits: number,
): { digits: string; exp: number } {
  const abs = Math.abs(v);
  for (let p = 1; p <= maxDigits; p++) {
    const s = abs.toExponential(p - 1);
    if (roundTrip(Number(s)) === abs || p === maxDigits) {
      const [mant = "0", e = "0"] = s.split("e");
      const digits = mant.replace(".", "").replace(/0+$/, "") || "0";
      return { digits, exp: Number(e) + 1 };
    }
  }
  return { digits: "0", exp: 1 };
}

/** Digits `0.d1d2…dn × 10^dp` in plain (`%f`) notation. */
function plainNotation(digits: string, dp: number): string {
  if (dp <= 0) return `0.${"0".repeat(-dp)}${digits}`;
  if (dp >= digits.length) return digits + "0".repeat(dp - digits.length);
  return `${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

function special(v: number): string | undefined {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  return undefined;
}

/** Go `strconv.FormatFloat(f, 'f', -1, 32)`: the shortest float32 digits, never an exponent. */
export function formatFloat32(f: number): string {
  const v = Math.fround(f);
  const sp = special(v);
  if (sp !== undefined) return sp;
  const { digits, exp } = shortestDigits(v, Math.fround, 9);
  return (v < 0 ? "-" : "") + plainNotation(digits, exp);
}

/** Go `strconv.FormatFloat(f, 'g', -1, 32)`: float32 shortest digits, `%e` form when exp < -4 or ≥ 6. */
function formatFloat32G(f: number): string {
  const v = Math.fround(f);
  const sp = special(v);
  if (sp !== undefined) return sp;
  const { digits, exp } = shortestDigits(v, Math.fround, 9);
  return (v < 0 ? "-" : "") + gNotation(digits, exp, 6);
}

/** Shortest `%g`: `d.ddde±XX` when the decimal exponent is < -4 or ≥ `eprec`, else plain. */
function gNotation(digits: string, exp: number, eprec: number): string {
  const e = exp - 1;
  if (e < -4 || e >= eprec) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const es = Math.abs(e).toString().padStart(2, "0");
    return `${mant}e${e < 0 ? "-" : "+"}${es}`;
  }
  return plainNotation(digits, exp);
}

/**
 * A float YAML map key as sigs.k8s.io/yaml turns it into a JSON key: `FormatFloat(f, 'g', -1, 32)`,
 * with the special values named as YAML names them (`.inf`, `-.inf`, `.nan`).
 */
export function float32MapKey(f: number): string {
  const s = formatFloat32G(f);
  return s === "+Inf" ? ".inf" : s === "-Inf" ? "-.inf" : s === "NaN" ? ".nan" : s;
}
