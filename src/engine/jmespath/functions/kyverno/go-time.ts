/**
 * A Go `time.Time` reduced to what Kyverno's time functions observe: an instant (Unix seconds
 * and nanoseconds) and the zone offset it is shown in. Printing is RFC 3339 (`time.RFC3339`).
 */
import { SECOND } from "../../../values/duration.js";

export interface GoTime {
  /** Seconds since the Unix epoch. */
  readonly sec: bigint;
  /** Nanoseconds within the second, 0..999999999. */
  readonly nsec: number;
  /** Offset from UTC, in seconds, of the zone the time is shown in. */
  readonly offset: number;
}

export const RFC3339 = "2006-01-02T15:04:05Z07:00";
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
/** Seconds from 0001-01-01T00:00:00Z (Go's zero time) to the Unix epoch. */
const ZERO_TO_UNIX = 62_135_596_800n;

/** Days since 1970-01-01 of a proleptic Gregorian date (months 1..12, days may overflow). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday. */
  weekday: number;
}

/** The calendar fields of a time, in its own zone offset. */
export function civil(t: GoTime): Civil {
  const local = t.sec + BigInt(t.offset);
  const days = Number(local >= 0n ? local / 86_400n : -((-local + 86_399n) / 86_400n));
  const secs = Number(local - BigInt(days) * 86_400n);
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return {
    year,
    month,
    day,
    hour: Math.floor(secs / 3600),
    minute: Math.floor((secs % 3600) / 60),
    second: secs % 60,
    weekday: (((days + 4) % 7) + 7) % 7,
  };
}

export function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

export function daysIn(month: number, year: number): number {
  if (month === 2) return isLeap(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Go `time.Date` in a zone with the given offset (fields may overflow and are normalised). */
export function goDate(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  nsec: number,
  offset: number,
): GoTime {
  const m0 = month - 1;
  const y = year + Math.floor(m0 / 12);
  const m = (((m0 % 12) + 12) % 12) + 1;
  const days = BigInt(daysFromCivil(y, m, 1) + day - 1);
  const sec = days * 86_400n + BigInt(hour * 3600 + minute * 60 + second) - BigInt(offset);
  return normalise(sec, nsec, offset);
}

function normalise(sec: bigint, nsec: number, offset: number): GoTime {
  const carry = Math.floor(nsec / 1e9);
  return { sec: sec + BigInt(carry), nsec: nsec - carry * 1e9, offset };
}

export function fromUnixMillis(ms: number, offset = 0): GoTime {
  const sec = Math.floor(ms / 1000);
  return { sec: BigInt(sec), nsec: Math.round((ms - sec * 1000) * 1e6), offset };
}

function pad(n: number, width: number): string {
  return String(Math.abs(n)).padStart(width, "0");
}

/** Go's `stdLongYear` printing: at least four digits, with a sign for years before 0. */
function formatYear(y: number): string {
  return y < 0 ? `-${pad(y, 4)}` : pad(y, 4);
}

/** `t.Format(time.RFC3339)`: no fraction; `Z` for a zero offset, else `±hh:mm`. */
export function formatRFC3339(t: GoTime): string {
  const c = civil(t);
  let zone = "Z";
  if (t.offset !== 0) {
    const minutes = Math.trunc(t.offset / 60);
    const abs = Math.abs(minutes);
    zone = `${minutes < 0 ? "-" : "+"}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`;
  }
  return `${formatYear(c.year)}-${pad(c.month, 2)}-${pad(c.day, 2)}T${pad(c.hour, 2)}:${pad(c.minute, 2)}:${pad(c.second, 2)}${zone}`;
}

export function toUTC(t: GoTime): GoTime {
  return { ...t, offset: 0 };
}

function totalNs(t: GoTime): bigint {
  return t.sec * SECOND + BigInt(t.nsec);
}

export function compareTimes(a: GoTime, b: GoTime): -1 | 0 | 1 {
  const x = totalNs(a);
  const y = totalNs(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `t.Add(d)`. */
export function addDuration(t: GoTime, ns: bigint): GoTime {
  const total = totalNs(t) + ns;
  const sec = total >= 0n ? total / SECOND : -((-total + SECOND - 1n) / SECOND);
  return { sec, nsec: Number(total - sec * SECOND), offset: t.offset };
}

/** `t.Sub(u)`: saturates at the int64 Duration limits, as Go does. */
export function subTimes(t: GoTime, u: GoTime): bigint {
  const d = totalNs(t) - totalNs(u);
  return d > INT64_MAX ? INT64_MAX : d < INT64_MIN ? INT64_MIN : d;
}

/** `t.Truncate(d)`: rounds down to a multiple of d since Go's zero time; d ≤ 0 leaves t unchanged. */
export function truncateTime(t: GoTime, d: bigint): GoTime {
  if (d <= 0n) return t;
  const sinceZero = totalNs(t) + ZERO_TO_UNIX * SECOND;
  const r = ((sinceZero % d) + d) % d;
  return addDuration(t, -r);
}
