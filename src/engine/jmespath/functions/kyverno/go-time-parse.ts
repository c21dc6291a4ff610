/**
 * Go's `time.Parse(layout, value)` with the local zone taken as UTC (as in Kyverno's container):
 * the same element rules, defaults (year 0, January 1), zone handling and error texts.
 */
import { daysIn, goDate, isLeap, RFC3339, type GoTime } from "./go-time.js";
import { Bad, parseElement, parseNanoseconds, quote, skip, type Fields } from "./go-time-elements.js";
import { nextStdChunk } from "./go-time-layout.js";

const DAYS_BEFORE = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];

/** Go's fast RFC 3339 path (exact field widths, `T`, `Z` or `±hh:mm`). */
function parseRFC3339Fast(s: string): GoTime | undefined {
  const m =
    /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(Z|[-+][0-9]{2}:[0-9]{2})$/.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, min, sec] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || min > 59 || sec > 59)
    return undefined;
  const nsec = m[7] ? parseNanoseconds(m[7], m[7].length) : 0;
  const zone = m[8] ?? "Z";
  let offset = 0;
  if (zone !== "Z") {
    const hr = Number(zone.slice(1, 3));
    const mm = Number(zone.slice(4, 6));
    if (hr > 23 || mm > 59) return undefined;
    offset = (hr * 60 + mm) * 60 * (zone[0] === "-" ? -1 : 1);
  }
  return goDate(year, month, day, hour, min, sec, nsec, offset);
}

/** `time.Parse(layout, value)`: the time, or Go's error text. */
export function goParseTime(layout: string, value: string): GoTime | string {
  if (layout === RFC3339 || layout === "2006-01-02T15:04:05.999999999Z07:00") {
    const fast = parseRFC3339Fast(value);
    if (fast !== undefined) return fast;
  }
  const f: Fields = {
    year: 0,
    month: -1,
    day: -1,
    yday: -1,
    hour: 0,
    min: 0,
    sec: 0,
    nsec: 0,
    utc: false,
    zoneOffset: undefined,
    zoneName: "",
    pm: false,
    am: false,
  };
  let rest = layout;
  let v = value;
  for (;;) {
    const chunk = nextStdChunk(rest);
    try {
      v = skip(v, chunk.prefix);
    } catch {
      return `parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(v)} as ${quote(chunk.prefix)}`;
    }
    if (chunk.std === undefined) {
      if (v.length !== 0) return `parsing time ${quote(value)}: extra text: ${quote(v)}`;
      break;
    }
    rest = chunk.suffix;
    const hold = v;
    try {
      const r = parseElement(chunk.std, chunk.digits, v, f, rest);
      if (r.range !== undefined) return `parsing time ${quote(value)}: ${r.range} out of range`;
      v = r.rest;
    } catch (e) {
      if (!(e instanceof Bad)) throw e;
      return `parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(hold)} as ${quote(chunk.stdText)}`;
    }
  }
  if (f.pm && f.hour < 12) f.hour += 12;
  else if (f.am && f.hour === 12) f.hour = 0;
  if (f.yday >= 0) {
    const err = applyYearDay(f);
    if (err !== undefined) return `parsing time ${quote(value)}${err}`;
  }
  if (f.month < 0) f.month = 1;
  if (f.day < 0) f.day = 1;
  if (f.day < 1 || f.day > daysIn(f.month, f.year)) return `parsing time ${quote(value)}: day out of range`;
  if (f.utc) return goDate(f.year, f.month, f.day, f.hour, f.min, f.sec, f.nsec, 0);
  if (f.zoneOffset !== undefined) return goDate(f.year, f.month, f.day, f.hour, f.min, f.sec, f.nsec, f.zoneOffset);
  // An abbreviation has no known offset in UTC; only GMT±h carries one.
  const gmt = /^GMT([-+][0-9]+)$/.exec(f.zoneName);
  const offset = gmt ? Number(gmt[1]) * 3600 : 0;
  return goDate(f.year, f.month, f.day, f.hour, f.min, f.sec, f.nsec, offset);
}

function applyYearDay(f: Fields): string | undefined {
  let yday = f.yday;
  let m = 0;
  let d = 0;
  if (isLeap(f.year)) {
    if (yday === 31 + 29) [m, d] = [2, 29];
    else if (yday > 31 + 29) yday--;
  }
  if (yday < 1 || yday > 365) return ": day-of-year out of range";
  if (m === 0) {
    m = Math.floor((yday - 1) / 31) + 1;
    if ((DAYS_BEFORE[m] ?? 0) < yday) m++;
    d = yday - (DAYS_BEFORE[m - 1] ?? 0);
  }
  if (f.month >= 0 && f.month !== m) return ": day-of-year does not match month";
  f.month = m;
  if (f.day >= 0 && f.day !== d) return ": day-of-year does not match day";
  f.day = d;
  return undefined;
}
