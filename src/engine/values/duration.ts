/**
 * Go `time.Duration` values: parsing (`time.ParseDuration`) and printing (`Duration.String()`).
 * A duration is a signed count of nanoseconds held in a bigint; it must fit in an int64, as in Go.
 */

const NANOSECOND = 1n;
const MICROSECOND = 1_000n;
const MILLISECOND = 1_000_000n;
export const SECOND = 1_000_000_000n;
export const MINUTE = 60n * SECOND;
export const HOUR = 60n * MINUTE;

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const LIMIT = 1n << 63n;

const UNITS: ReadonlyMap<string, bigint> = new Map([
  ["ns", NANOSECOND],
  ["us", MICROSECOND],
  ["\u00b5s", MICROSECOND], // micro sign
  ["\u03bcs", MICROSECOND], // Greek small letter mu
  ["ms", MILLISECOND],
  ["s", SECOND],
  ["m", MINUTE],
  ["h", HOUR],
]);
const UNITS_WITH_DAYS: ReadonlyMap<string, bigint> = new Map([...UNITS, ["d", 24n * HOUR]]);

/** `days`: also accept `d` (24h), which Go does not, for flags such as serve's `--tls-renew-before=15d`. */
export interface DurationOptions {
  readonly days?: boolean;
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

/**
 * Parses Go duration syntax: an optional sign, then one or more `<number><unit>` groups, where a
 * number may have a fraction (`1.5h`, `.5s`, `1.s`) and the unit is ns, us, µs, ms, s, m or h.
 * `"0"` alone (optionally signed) is valid; `""` is not. Returns nanoseconds, or undefined when
 * the text is not a duration or does not fit in an int64.
 */
export function parseDuration(s: string, options: DurationOptions = {}): bigint | undefined {
  // Most strings compared by conditions are not durations: reject them before any error text is built.
  if (!mayBeDuration(s)) return undefined;
  const r = parseDurationOrError(s, options);
  return typeof r === "bigint" ? r : undefined;
}

/** `parseDuration` in milliseconds (with a fraction below one), for timers. */
export function parseDurationMillis(s: string, options: DurationOptions = {}): number | undefined {
  const ns = parseDuration(s, options);
  return ns === undefined ? undefined : Number(ns) / 1e6;
}

/** A duration starts with a sign, a digit or a dot; anything else is rejected at once. */
function mayBeDuration(s: string): boolean {
  return s !== "" && (s[0] === "-" || s[0] === "+" || s[0] === "." || isDigit(s[0]));
}

/** Like `parseDuration`, but a failure gives Go's error text (`time: invalid duration "x"`). */
export function parseDurationOrError(s: string, options: DurationOptions = {}): bigint | string {
  const units = options.days === true ? UNITS_WITH_DAYS : UNITS;
  if (!mayBeDuration(s)) return `time: invalid duration ${goQuote(s)}`;
  const quoted = goQuote(s);
  const invalid = `time: invalid duration ${quoted}`;
  let i = 0;
  let neg = false;
  if (s[0] === "-" || s[0] === "+") {
    neg = s[0] === "-";
    i = 1;
  }
  const rest = s.slice(i);
  if (rest === "0") return 0n;
  if (rest === "") return invalid;
  let total = 0n;
  while (i < s.length) {
    if (s[i] !== "." && !isDigit(s[i])) return invalid;
    // Integer part. Go rejects it once it passes 2^63.
    let whole = 0n;
    const wholeStart = i;
    while (isDigit(s[i])) {
      whole = whole * 10n + BigInt(s.charCodeAt(i) - 48);
      if (whole > LIMIT) return invalid;
      i++;
    }
    const hasWhole = i > wholeStart;
    // Fraction part. Digits past int64 precision are dropped, as Go does.
    let frac = 0n;
    let scale = 1n;
    let hasFrac = false;
    if (s[i] === ".") {
      i++;
      const fracStart = i;
      let overflow = false;
      while (isDigit(s[i])) {
        if (!overflow) {
          const next = frac * 10n + BigInt(s.charCodeAt(i) - 48);
          if (frac > LIMIT / 10n || next > LIMIT) overflow = true;
          else {
            frac = next;
            scale *= 10n;
          }
        }
        i++;
      }
      hasFrac = i > fracStart;
    }
    if (!hasWhole && !hasFrac) return invalid;
    // Unit: everything up to the next digit or dot.
    const unitStart = i;
    while (i < s.length && s[i] !== "." && !isDigit(s[i])) i++;
    if (i === unitStart) return `time: missing unit in duration ${quoted}`;
    const unitText = s.slice(unitStart, i);
    const unit = units.get(unitText);
    if (unit === undefined) return `time: unknown unit ${goQuote(unitText)} in duration ${quoted}`;
    if (whole > LIMIT / unit) return invalid;
    let v = whole * unit;
    if (frac > 0n) {
      // Go computes the fractional part in float64; keep that rounding.
      v += BigInt(Math.trunc(Number(frac) * (Number(unit) / Number(scale))));
      if (v > LIMIT) return invalid;
    }
    total += v;
    if (total > LIMIT) return invalid;
  }
  if (neg) return -total;
  if (total > INT64_MAX) return invalid;
  return total;
}

/** Go's `strconv.Quote`, close enough for error messages. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** Formats nanoseconds as Go's `Duration.String()`: `1h0m5s`, `1.5s`, `500ms`, `1.5µs`, `0s`. */
export function formatDuration(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  const sign = neg ? "-" : "";
  if (u < SECOND) {
    if (u === 0n) return "0s";
    if (u < MICROSECOND) return `${sign}${u}ns`;
    if (u < MILLISECOND) return `${sign}${fraction(u, 3)}\u00b5s`;
    return `${sign}${fraction(u, 6)}ms`;
  }
  let out = `${fraction(u % MINUTE, 9)}s`;
  u /= MINUTE;
  if (u > 0n) {
    out = `${u % 60n}m${out}`;
    u /= 60n;
    if (u > 0n) out = `${u}h${out}`;
  }
  return sign + out;
}

/** `v / 10^digits` in decimal, with trailing zeros of the fraction removed. */
function fraction(v: bigint, digits: number): string {
  const base = 10n ** BigInt(digits);
  const whole = v / base;
  const frac = (v % base).toString().padStart(digits, "0").replace(/0+$/, "");
  return frac === "" ? `${whole}` : `${whole}.${frac}`;
}

/** Wraps to a signed 64-bit value, as Go's int64 arithmetic does on overflow. */
export function wrapInt64(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}

/** Go's float64 → int64 conversion on amd64: truncation, with out-of-range values giving MinInt64. */
export function float64ToInt64(f: number): bigint {
  if (!Number.isFinite(f)) return INT64_MIN;
  const t = BigInt(Math.trunc(f));
  return t > INT64_MAX || t < INT64_MIN ? INT64_MIN : t;
}

/** Go's `Duration.Seconds()`: whole seconds plus the nanosecond remainder, in float64. */
export function durationSeconds(ns: bigint): number {
  const sec = ns / SECOND;
  const rem = ns % SECOND;
  return Number(sec) + Number(rem) / 1e9;
}
