/**
 * Kubernetes `resource.Quantity` (k8s.io/apimachinery): parsing, canonical printing, comparison
 * and the exact decimal arithmetic Kyverno relies on. Values are exact (bigint based), never floats.
 *
 * A Quantity keeps the same internal shape Kubernetes keeps — an unscaled integer and a decimal
 * scale (`value = unscaled × 10^-scale`) — because a few Kyverno operations (dividing by a
 * number, `AsApproximateFloat64`) depend on that shape, not only on the value.
 */

type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

/** Treat as opaque: build with `parseQuantity` / `quantityFromInt`, read with the functions here. */
export interface Quantity {
  readonly unscaled: bigint;
  /** Number of decimal places: the value is `unscaled × 10^-scale` (may be negative). */
  readonly scale: number;
  readonly format: QuantityFormat;
}

const INT64_MAX = (1n << 63n) - 1n;
/** Most decimal digits the int64 fast path accepts (`maxInt64Factors`). */
const MAX_INT64_FACTORS = 18;
const NANO_SCALE = 9;

/** Largest power of ten computed exactly; beyond it an operation gives up (RangeError). */
const MAX_EXACT_DIGITS = 100_000;

/** 10^n as a bigint, refusing sizes that would exhaust memory. */
function tenTo(n: number): bigint {
  if (n > MAX_EXACT_DIGITS) throw new RangeError(`quantity needs more than ${MAX_EXACT_DIGITS} digits`);
  return 10n ** BigInt(n);
}

const DECIMAL_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);
const BINARY_SUFFIXES: ReadonlyMap<string, number> = new Map([
  ["Ki", 10],
  ["Mi", 20],
  ["Gi", 30],
  ["Ti", 40],
  ["Pi", 50],
  ["Ei", 60],
]);
const DECIMAL_BY_EXPONENT = new Map([...DECIMAL_SUFFIXES].map(([k, v]) => [v, k]));
const BINARY_BY_EXPONENT = new Map([...BINARY_SUFFIXES].map(([k, v]) => [v, k]));
const SUFFIX_CHARS = "eEinumkKMGTP";

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

interface Parts {
  positive: boolean;
  num: string;
  denom: string;
  /** The numeric text without the suffix, as Kubernetes hands it to inf.Dec. */
  value: string;
  suffix: string;
}

/** Splits the text the way `parseQuantityString` does; undefined on a malformed suffix. */
function splitQuantity(str: string): Parts | undefined {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (str[0] === "-" || str[0] === "+") {
    positive = str[0] === "+";
    pos++;
  }
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { positive, num: "0", denom: "", value: "0", suffix: "" };
  const numStart = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  let num = str.slice(numStart, pos);
  if (pos >= end) return { positive, num, denom: "", value: str, suffix: "" };
  if (num === "") num = "0";
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    const denomStart = pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
    if (pos >= end) return { positive, num, denom, value: str, suffix: "" };
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && SUFFIX_CHARS.includes(str[pos] ?? "")) pos++;
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) return undefined;
  return { positive, num, denom, value, suffix: str.slice(suffixStart) };
}

interface Suffix {
  base: 2 | 10;
  exponent: number;
  format: QuantityFormat;
}

function interpretSuffix(suffix: string): Suffix | undefined {
  const dec = DECIMAL_SUFFIXES.get(suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: "DecimalSI" };
  const bin = BINARY_SUFFIXES.get(suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const digits = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
    const n = BigInt(digits);
    if (n > INT64_MAX || n < -INT64_MAX - 1n) return undefined;
    return { base: 10, exponent: Number(BigInt.asIntN(32, n)), format: "DecimalExponent" };
  }
  return undefined;
}

/** Parses Kubernetes quantity syntax (`500m`, `1.5Gi`, `2e3`, `-1k`); undefined if invalid. */
export function parseQuantity(str: string): Quantity | undefined {
  if (str.length === 0) return undefined;
  const parts = splitQuantity(str);
  if (parts === undefined) return undefined;
  const sfx = interpretSuffix(parts.suffix);
  if (sfx === undefined) return undefined;
  const { positive, num, denom } = parts;
  let format = sfx.format;

  // The int64 fast path, which keeps the digits as written (no rounding, no cap).
  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (sfx.base === 10) {
    scale = sfx.exponent;
    precision = MAX_INT64_FACTORS - (num.length + denom.length);
  } else if (denom.length === 0) {
    mantissa = 1n << BigInt(sfx.exponent);
    precision = 15 - num.length - Math.trunc(Math.fround(Math.fround(sfx.exponent) * 3) / 10) - 1;
  } else {
    precision = -1;
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -NANO_SCALE) {
      const result = BigInt(num + denom) * mantissa;
      if (result <= INT64_MAX) return { unscaled: positive ? result : -result, scale: -scale, format };
    }
  }

  // The slow path: exact decimal, rounded up to nano units; apimachinery caps only BinarySI values
  // at 2^63-1, so very large decimal values (1e30, 100E) keep their exact value and compare correctly.
  if (!/[0-9]/.test(parts.value)) return undefined;
  let unscaled = BigInt(num + denom);
  let decScale = denom.length;
  if (sfx.base === 10) decScale -= sfx.exponent;
  else unscaled *= 1n << BigInt(sfx.exponent);
  // Capping first is equivalent (rounding up to nano units never crosses an integer bound).
  if (format === "BinarySI" && compareMagnitudes(unscaled, decScale, INT64_MAX, 0) > 0) {
    unscaled = INT64_MAX;
    decScale = 0;
  } else if (unscaled !== 0n && decScale > NANO_SCALE) {
    // Only digits below nano units change the value; a value with fewer decimals keeps its scale
    // (rescaling 1e100000 to nano units would only materialise a huge power of ten).
    ({ unscaled, scale: decScale } = rescaleRoundUp(unscaled, decScale, NANO_SCALE));
  }
  if (format === "BinarySI" && unscaled !== 0n && compareMagnitudes(unscaled, decScale, 1n, 0) < 0) {
    format = "DecimalSI";
  }
  return { unscaled: positive ? unscaled : -unscaled, scale: decScale, format };
}

/** Sets a non-negative decimal to `target` places, rounding away from zero when digits are lost. */
function rescaleRoundUp(unscaled: bigint, scale: number, target: number): { unscaled: bigint; scale: number } {
  if (scale <= target) return { unscaled: unscaled * tenTo(target - scale), scale: target };
  // Everything is below the last kept digit: the value rounds up to one unit.
  if (scale - target > digitCount(unscaled)) return { unscaled: 1n, scale: target };
  const div = tenTo(scale - target);
  const q = unscaled / div;
  return { unscaled: unscaled % div === 0n ? q : q + 1n, scale: target };
}

function digitCount(v: bigint): number {
  return (v < 0n ? -v : v).toString().length;
}

/** Compares |a| and |b| without materialising huge powers of ten. */
function compareMagnitudes(ua: bigint, sa: number, ub: bigint, sb: number): -1 | 0 | 1 {
  const a = ua < 0n ? -ua : ua;
  const b = ub < 0n ? -ub : ub;
  if (a === 0n || b === 0n) return a === b ? 0 : a === 0n ? -1 : 1;
  const ma = digitCount(a) - sa;
  const mb = digitCount(b) - sb;
  if (ma !== mb) return ma < mb ? -1 : 1;
  const [x, y] = sa >= sb ? [a, b * tenTo(sa - sb)] : [a * tenTo(sb - sa), b];
  return x === y ? 0 : x < y ? -1 : 1;
}

export function quantitySign(q: Quantity): -1 | 0 | 1 {
  return q.unscaled === 0n ? 0 : q.unscaled < 0n ? -1 : 1;
}

export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const sa = quantitySign(a);
  const sb = quantitySign(b);
  if (sa !== sb) return sa < sb ? -1 : 1;
  const m = compareMagnitudes(a.unscaled, a.scale, b.unscaled, b.scale);
  return sa < 0 ? (-m as -1 | 0 | 1) : m;
}

/** The value as an exact fraction `numerator / 10^exp`, both aligned to a common scale. */
function align(a: Quantity, b: Quantity): { x: bigint; y: bigint; scale: number } {
  const scale = Math.max(a.scale, b.scale);
  return {
    x: a.unscaled * tenTo(scale - a.scale),
    y: b.unscaled * tenTo(scale - b.scale),
    scale,
  };
}

/** `Quantity.Add`: the result keeps the left format, unless the left side is zero. */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  const { x, y, scale } = align(a, b);
  return { unscaled: x + y, scale, format: a.unscaled === 0n ? b.format : a.format };
}

/** `Quantity.Sub`: the result keeps the left format, unless the left side is zero. */
export function subtractQuantities(a: Quantity, b: Quantity): Quantity {
  const { x, y, scale } = align(a, b);
  return { unscaled: x - y, scale, format: a.unscaled === 0n ? b.format : a.format };
}

/** `inf.Dec.Mul`: exact product (scales add), given the format of the result. */
export function multiplyQuantities(a: Quantity, b: Quantity, format: QuantityFormat): Quantity {
  return { unscaled: a.unscaled * b.unscaled, scale: a.scale + b.scale, format };
}

/** `inf.Dec.QuoRound(a, b, scale, RoundDown)`: quotient truncated toward zero at `scale` places. */
export function divideQuantitiesTruncated(a: Quantity, b: Quantity, scale: number, format: QuantityFormat): Quantity {
  if (b.unscaled === 0n) throw new RangeError("division by zero");
  // a/b = (ua / ub) × 10^(sb - sa); scaled by 10^scale.
  const shift = scale + b.scale - a.scale;
  let n = a.unscaled;
  let d = b.unscaled;
  if (shift >= 0) n *= tenTo(shift);
  else d *= tenTo(-shift);
  return { unscaled: n / d, scale, format };
}

/** An integer quantity (`resource.NewQuantity`). */
export function quantityFromInt(value: bigint, format: QuantityFormat): Quantity {
  return { unscaled: value, scale: 0, format };
}

/** Whether the value has no fractional part. */
export function isIntegerQuantity(q: Quantity): boolean {
  if (q.scale <= 0 || q.unscaled === 0n) return true;
  return q.unscaled % tenTo(q.scale) === 0n;
}

/** Go `math.Pow10`, with its table-based rounding. */
function pow10(n: number): number {
  if (n >= 0 && n <= 308) return Number(`1e${32 * Math.trunc(n / 32)}`) * Number(`1e${n % 32}`);
  if (n < 0 && n >= -323) return Number(`1e-${32 * Math.trunc(-n / 32)}`) / Number(`1e${-n % 32}`);
  return n > 0 ? Infinity : 0;
}

/** `Quantity.AsApproximateFloat64`: `float64(unscaled) × 10^-scale`. */
export function quantityToFloat64(q: Quantity): number {
  const base = Number(q.unscaled);
  if (q.scale === 0) return base;
  return base * pow10(-q.scale);
}

/** The canonical text Kubernetes prints (`Quantity.String()`): `1500m`, `1536Mi`, `1e3`, `0`. */
export function formatQuantity(q: Quantity): string {
  if (q.unscaled === 0n) return "0";
  let format = q.format;
  if (format === "BinarySI") {
    const small = compareMagnitudes(q.unscaled, q.scale, 1024n, 0) < 0;
    if (small || !isIntegerQuantity(q)) format = "DecimalSI";
  }
  if (format === "BinarySI") {
    let v = q.scale >= 0 ? q.unscaled / tenTo(q.scale) : q.unscaled * tenTo(-q.scale);
    let times = 0;
    while (v % 1024n === 0n) {
      v /= 1024n;
      times++;
    }
    return `${v}${BINARY_BY_EXPONENT.get(times * 10) ?? ""}`;
  }
  let m = q.unscaled;
  let exponent = -q.scale;
  while (m % 10n === 0n) {
    m /= 10n;
    exponent++;
  }
  while (exponent % 3 !== 0) {
    m *= 10n;
    exponent--;
  }
  if (format === "DecimalExponent") return exponent === 0 ? `${m}` : `${m}e${exponent}`;
  return `${m}${DECIMAL_BY_EXPONENT.get(exponent) ?? ""}`;
}
