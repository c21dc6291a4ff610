/**
 * The elements of a Go time layout and how `time.Parse` reads each one from the value
 * (numbers, month and day names, AM/PM, zone names and offsets, fractional seconds).
 */
import { nextStdChunk, type Std } from "./go-time-layout.js";

const SHORT_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const LONG_MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const SHORT_DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** A value that does not fit its layout element. */
export class Bad extends Error {}

export function quote(s: string): string {
  return JSON.stringify(s);
}

function isDigit(s: string, i: number): boolean {
  const c = s[i];
  return c !== undefined && c >= "0" && c <= "9";
}

/** One or two digits (exactly two when `fixed`). */
function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigit(s, 0)) throw new Bad();
  if (!isDigit(s, 1)) {
    if (fixed) throw new Bad();
    return [Number(s[0]), s.slice(1)];
  }
  return [Number(s.slice(0, 2)), s.slice(2)];
}

/** One to three digits (exactly three when `fixed`). */
function getnum3(s: string, fixed: boolean): [number, string] {
  let n = 0;
  let i = 0;
  while (i < 3 && isDigit(s, i)) n = n * 10 + Number(s[i++]);
  if (i === 0 || (fixed && i !== 3)) throw new Bad();
  return [n, s.slice(i)];
}

/** Go's time-package `atoi`: optional sign, then only digits. */
function atoi(s: string): number {
  const m = /^([-+]?)([0-9]+)$/.exec(s);
  if (!m) throw new Bad();
  const v = Number(m[2]);
  return m[1] === "-" ? -v : v;
}

function lookup(table: readonly string[], value: string): [number, string] {
  for (let i = 0; i < table.length; i++) {
    const name = table[i] ?? "";
    if (value.length >= name.length && value.slice(0, name.length).toLowerCase() === name.toLowerCase()) {
      return [i, value.slice(name.length)];
    }
  }
  throw new Bad();
}

/** Literal layout text must match; a space matches one or more spaces. */
export function skip(value: string, prefix: string): string {
  let v = value;
  let p = prefix;
  while (p.length > 0) {
    if (p[0] === " ") {
      if (v.length > 0 && v[0] !== " ") throw new Bad();
      p = p.replace(/^ +/, "");
      v = v.replace(/^ +/, "");
      continue;
    }
    if (v.length === 0 || v[0] !== p[0]) throw new Bad();
    p = p.slice(1);
    v = v.slice(1);
  }
  return v;
}

/** Fraction digits after `.` or `,`, scaled to nanoseconds (at most nine digits count). */
export function parseNanoseconds(value: string, nbytes: number): number {
  if (value[0] !== "." && value[0] !== ",") throw new Bad();
  const n = Math.min(nbytes, 10);
  const digits = value.slice(1, n);
  if (!/^[0-9]*$/.test(digits) || digits === "") throw new Bad();
  return Number(digits) * 10 ** (10 - n);
}

function signedOffsetLength(value: string): number {
  const m = /^[-+]([0-9]+)/.exec(value);
  if (!m || Number(m[1]) > 12) return 0;
  return m[0].length;
}

/** Go's `parseTimeZone`: length of a zone abbreviation at the start of value, or 0. */
function timeZoneLength(value: string): number {
  if (value.length < 3) return 0;
  if (value.startsWith("ChST") || value.startsWith("MeST")) return 4;
  if (value.startsWith("GMT")) return 3 + (value.length === 3 ? 0 : signedOffsetLength(value.slice(3)));
  if (value[0] === "+" || value[0] === "-") return signedOffsetLength(value);
  let upper = 0;
  while (upper < 6 && upper < value.length && /[A-Z]/.test(value[upper] ?? "")) upper++;
  if (upper === 3) return 3;
  if (upper === 4 && (value[3] === "T" || value.startsWith("WITA"))) return 4;
  if (upper === 5 && value[4] === "T") return 5;
  return 0;
}

export interface Fields {
  year: number;
  month: number;
  day: number;
  yday: number;
  hour: number;
  min: number;
  sec: number;
  nsec: number;
  utc: boolean;
  zoneOffset: number | undefined;
  zoneName: string;
  pm: boolean;
  am: boolean;
}

/** Parses a numeric zone offset element; returns the rest of the value. */
function parseOffset(std: Std, value: string, f: Fields): { rest: string; range?: string } {
  let sign: string;
  let h: string;
  let m = "00";
  let s = "00";
  let rest: string;
  if (std === "ISO8601ColonTZ" || std === "NumColonTZ") {
    if (value.length < 6 || value[3] !== ":") throw new Bad();
    [sign, h, m, rest] = [value.slice(0, 1), value.slice(1, 3), value.slice(4, 6), value.slice(6)];
  } else if (std === "NumShortTZ" || std === "ISO8601ShortTZ") {
    if (value.length < 3) throw new Bad();
    [sign, h, rest] = [value.slice(0, 1), value.slice(1, 3), value.slice(3)];
  } else if (std === "ISO8601ColonSecondsTZ" || std === "NumColonSecondsTZ") {
    if (value.length < 9 || value[3] !== ":" || value[6] !== ":") throw new Bad();
    [sign, h, m, s, rest] = [
      value.slice(0, 1),
      value.slice(1, 3),
      value.slice(4, 6),
      value.slice(7, 9),
      value.slice(9),
    ];
  } else if (std === "ISO8601SecondsTZ" || std === "NumSecondsTz") {
    if (value.length < 7) throw new Bad();
    [sign, h, m, s, rest] = [
      value.slice(0, 1),
      value.slice(1, 3),
      value.slice(3, 5),
      value.slice(5, 7),
      value.slice(7),
    ];
  } else {
    if (value.length < 5) throw new Bad();
    [sign, h, m, rest] = [value.slice(0, 1), value.slice(1, 3), value.slice(3, 5), value.slice(5)];
  }
  const [hr] = getnum(h, true);
  const [mm] = getnum(m, true);
  const [ss] = getnum(s, true);
  let range: string | undefined;
  if (hr > 24) range = "time zone offset hour";
  if (mm > 60) range = "time zone offset minute";
  if (ss > 60) range = "time zone offset second";
  const off = (hr * 60 + mm) * 60 + ss;
  if (sign === "+") f.zoneOffset = off;
  else if (sign === "-") f.zoneOffset = -off;
  else throw new Bad();
  return range === undefined ? { rest } : { rest, range };
}

/** Parses one element; returns the rest of the value, or a range error. */
export function parseElement(
  std: Std,
  digits: number,
  value: string,
  f: Fields,
  layoutRest: string,
): { rest: string; range?: string } {
  switch (std) {
    case "Year": {
      if (value.length < 2) throw new Bad();
      const y = atoi(value.slice(0, 2));
      f.year = y >= 69 ? y + 1900 : y + 2000;
      return { rest: value.slice(2) };
    }
    case "LongYear":
      if (value.length < 4 || !isDigit(value, 0)) throw new Bad();
      f.year = atoi(value.slice(0, 4));
      return { rest: value.slice(4) };
    case "Month":
    case "LongMonth": {
      const [m, rest] = lookup(std === "Month" ? SHORT_MONTHS : LONG_MONTHS, value);
      f.month = m + 1;
      return { rest };
    }
    case "NumMonth":
    case "ZeroMonth": {
      const [m, rest] = getnum(value, std === "ZeroMonth");
      f.month = m;
      return m <= 0 || m > 12 ? { rest, range: "month" } : { rest };
    }
    case "WeekDay":
    case "LongWeekDay":
      return { rest: lookup(std === "WeekDay" ? SHORT_DAYS : LONG_DAYS, value)[1] };
    case "Day":
    case "UnderDay":
    case "ZeroDay": {
      const v = std === "UnderDay" && value[0] === " " ? value.slice(1) : value;
      const [d, rest] = getnum(v, std === "ZeroDay");
      f.day = d;
      return { rest };
    }
    case "UnderYearDay":
    case "ZeroYearDay": {
      const v = std === "UnderYearDay" ? value.replace(/^ {1,2}/, "") : value;
      const [d, rest] = getnum3(v, std === "ZeroYearDay");
      f.yday = d;
      return { rest };
    }
    case "Hour": {
      const [h, rest] = getnum(value, false);
      f.hour = h;
      return h >= 24 ? { rest, range: "hour" } : { rest };
    }
    case "Hour12":
    case "ZeroHour12": {
      const [h, rest] = getnum(value, std === "ZeroHour12");
      f.hour = h;
      return h > 12 ? { rest, range: "hour" } : { rest };
    }
    case "Minute":
    case "ZeroMinute": {
      const [m, rest] = getnum(value, std === "ZeroMinute");
      f.min = m;
      return m >= 60 ? { rest, range: "minute" } : { rest };
    }
    case "Second":
    case "ZeroSecond": {
      const [s, rest] = getnum(value, std === "ZeroSecond");
      f.sec = s;
      if (s >= 60) return { rest, range: "second" };
      // A fraction in the value but not in the layout is still accepted.
      if (rest.length >= 2 && (rest[0] === "." || rest[0] === ",") && isDigit(rest, 1)) {
        const next = nextStdChunk(layoutRest).std;
        if (next === "FracSecond0" || next === "FracSecond9") return { rest };
        let n = 2;
        while (isDigit(rest, n)) n++;
        f.nsec = parseNanoseconds(rest, n);
        return { rest: rest.slice(n) };
      }
      return { rest };
    }
    case "PM":
    case "pm": {
      if (value.length < 2) throw new Bad();
      const p = value.slice(0, 2);
      const [pmText, amText] = std === "PM" ? ["PM", "AM"] : ["pm", "am"];
      if (p === pmText) f.pm = true;
      else if (p === amText) f.am = true;
      else throw new Bad();
      return { rest: value.slice(2) };
    }
    case "TZ": {
      if (value.startsWith("UTC")) {
        f.utc = true;
        return { rest: value.slice(3) };
      }
      const n = timeZoneLength(value);
      if (n === 0) throw new Bad();
      f.zoneName = value.slice(0, n);
      return { rest: value.slice(n) };
    }
    case "FracSecond0": {
      const n = 1 + digits;
      if (value.length < n) throw new Bad();
      f.nsec = parseNanoseconds(value, n);
      return { rest: value.slice(n) };
    }
    case "FracSecond9": {
      if (value.length < 2 || (value[0] !== "." && value[0] !== ",") || !isDigit(value, 1)) return { rest: value };
      let i = 0;
      while (isDigit(value, i + 1)) i++;
      f.nsec = parseNanoseconds(value, 1 + i);
      return { rest: value.slice(1 + i) };
    }
    default:
      if (std.startsWith("ISO8601") && value[0] === "Z") {
        f.utc = true;
        return { rest: value.slice(1) };
      }
      return parseOffset(std, value, f);
  }
}
