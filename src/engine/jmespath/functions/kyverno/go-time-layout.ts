/**
 * Go reference-time layouts (`Mon Jan 2 15:04:05 MST 2006`): splitting a layout into literal text
 * and the elements Go recognises (`nextStdChunk`).
 */

export type Std =
  | "LongMonth"
  | "Month"
  | "NumMonth"
  | "ZeroMonth"
  | "LongWeekDay"
  | "WeekDay"
  | "Day"
  | "UnderDay"
  | "ZeroDay"
  | "UnderYearDay"
  | "ZeroYearDay"
  | "Hour"
  | "Hour12"
  | "ZeroHour12"
  | "Minute"
  | "ZeroMinute"
  | "Second"
  | "ZeroSecond"
  | "LongYear"
  | "Year"
  | "PM"
  | "pm"
  | "TZ"
  | "ISO8601TZ"
  | "ISO8601SecondsTZ"
  | "ISO8601ShortTZ"
  | "ISO8601ColonTZ"
  | "ISO8601ColonSecondsTZ"
  | "NumTZ"
  | "NumSecondsTz"
  | "NumShortTZ"
  | "NumColonTZ"
  | "NumColonSecondsTZ"
  | "FracSecond0"
  | "FracSecond9";

interface Chunk {
  readonly prefix: string;
  /** Undefined when the rest of the layout is literal text. */
  readonly std?: Std;
  /** The layout text of the element, e.g. `Jan` or `.000`. */
  readonly stdText: string;
  /** Number of digits of a fractional-second element. */
  readonly digits: number;
  readonly suffix: string;
}

const ZERO_X: readonly Std[] = ["ZeroMonth", "ZeroDay", "ZeroHour12", "ZeroMinute", "ZeroSecond", "Year"];
const TZ_FORMS: ReadonlyArray<readonly [string, Std]> = [
  ["-070000", "NumSecondsTz"],
  ["-07:00:00", "NumColonSecondsTZ"],
  ["-0700", "NumTZ"],
  ["-07:00", "NumColonTZ"],
  ["-07", "NumShortTZ"],
  ["Z070000", "ISO8601SecondsTZ"],
  ["Z07:00:00", "ISO8601ColonSecondsTZ"],
  ["Z0700", "ISO8601TZ"],
  ["Z07:00", "ISO8601ColonTZ"],
  ["Z07", "ISO8601ShortTZ"],
];

function isDigitAt(s: string, i: number): boolean {
  const c = s[i];
  return c !== undefined && c >= "0" && c <= "9";
}

function startsWithLower(s: string): boolean {
  const c = s[0];
  return c !== undefined && c >= "a" && c <= "z";
}

/** Splits off the first layout element: text before it, the element, and the rest. */
export function nextStdChunk(layout: string): Chunk {
  const found = (i: number, len: number, std: Std, digits = 0): Chunk => ({
    prefix: layout.slice(0, i),
    std,
    stdText: layout.slice(i, i + len),
    digits,
    suffix: layout.slice(i + len),
  });
  for (let i = 0; i < layout.length; i++) {
    const c = layout[i];
    const rest = layout.slice(i);
    switch (c) {
      case "J":
        if (rest.startsWith("Jan")) {
          if (rest.startsWith("January")) return found(i, 7, "LongMonth");
          if (!startsWithLower(rest.slice(3))) return found(i, 3, "Month");
        }
        break;
      case "M":
        if (rest.startsWith("Mon")) {
          if (rest.startsWith("Monday")) return found(i, 6, "LongWeekDay");
          if (!startsWithLower(rest.slice(3))) return found(i, 3, "WeekDay");
        }
        if (rest.startsWith("MST")) return found(i, 3, "TZ");
        break;
      case "0": {
        const d = layout[i + 1];
        if (d !== undefined && d >= "1" && d <= "6") return found(i, 2, ZERO_X[Number(d) - 1] as Std);
        if (rest.startsWith("002")) return found(i, 3, "ZeroYearDay");
        break;
      }
      case "1":
        if (layout[i + 1] === "5") return found(i, 2, "Hour");
        return found(i, 1, "NumMonth");
      case "2":
        if (rest.startsWith("2006")) return found(i, 4, "LongYear");
        return found(i, 1, "Day");
      case "_":
        if (layout[i + 1] === "2") {
          // `_2006` is a literal underscore followed by the long year.
          if (rest.startsWith("_2006"))
            return {
              prefix: layout.slice(0, i + 1),
              std: "LongYear",
              stdText: "2006",
              digits: 0,
              suffix: layout.slice(i + 5),
            };
          return found(i, 2, "UnderDay");
        }
        if (rest.startsWith("__2")) return found(i, 3, "UnderYearDay");
        break;
      case "3":
        return found(i, 1, "Hour12");
      case "4":
        return found(i, 1, "Minute");
      case "5":
        return found(i, 1, "Second");
      case "P":
        if (layout[i + 1] === "M") return found(i, 2, "PM");
        break;
      case "p":
        if (layout[i + 1] === "m") return found(i, 2, "pm");
        break;
      case "-":
      case "Z":
        for (const [text, std] of TZ_FORMS) {
          if (rest.startsWith(text)) return found(i, text.length, std);
        }
        break;
      case ".":
      case ",": {
        const ch = layout[i + 1];
        if (ch === "0" || ch === "9") {
          let j = i + 1;
          while (layout[j] === ch) j++;
          if (!isDigitAt(layout, j)) return found(i, j - i, ch === "0" ? "FracSecond0" : "FracSecond9", j - (i + 1));
        }
        break;
      }
      default:
        break;
    }
  }
  return { prefix: layout, stdText: "", digits: 0, suffix: "" };
}
