/** Time functions (`pkg/engine/jmespath/time.go`). The current time comes only from the Clock port. */
import type { FunctionArg, FunctionContext, FunctionDef } from "../../types.js";
import { formatDuration, parseDurationOrError } from "../../../values/duration.js";
import { stringArg } from "./args.js";
import { goError } from "./errors.js";
import {
  addDuration,
  civil,
  compareTimes,
  formatRFC3339,
  fromUnixMillis,
  RFC3339,
  subTimes,
  toUTC,
  truncateTime,
  type GoTime,
} from "./go-time.js";
import { goParseTime } from "./go-time-parse.js";

function parseTime(layout: string, value: string): GoTime {
  const t = goParseTime(layout, value);
  if (typeof t === "string") throw goError(t);
  return t;
}

function timeArg(name: string, args: readonly FunctionArg[], index: number): GoTime {
  return parseTime(RFC3339, stringArg(name, args, index));
}

function durationArg(name: string, args: readonly FunctionArg[], index: number): bigint {
  const d = parseDurationOrError(stringArg(name, args, index));
  if (typeof d === "string") throw goError(d);
  return d;
}

/** The current time; Kyverno's container runs in UTC, so "local" time is UTC too. */
function now(ctx: FunctionContext): GoTime {
  return fromUnixMillis(ctx.ports.clock.nowMillis());
}

/** Go's `strconv.ParseInt(s, 10, 64)`: the value, or its error text. */
function parseInt64(s: string): bigint | string {
  if (!/^[-+]?[0-9]+$/.test(s)) return `strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`;
  const v = BigInt(s);
  if (v > (1n << 63n) - 1n || v < -(1n << 63n))
    return `strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range`;
  return v;
}

const twoTimes = [{ types: ["string"] }, { types: ["string"] }] as const;

export const timeFunctions: readonly FunctionDef[] = [
  {
    name: "time_since",
    args: [{ types: ["string"] }, { types: ["string"] }, { types: ["string"] }],
    returns: "string",
    description:
      "calculate the difference between a start and end period of time where the end may either be a static definition or the then-current time",
    call: (args, ctx) => {
      const layout = stringArg("time_since", args, 0) || RFC3339;
      const t1 = parseTime(layout, stringArg("time_since", args, 1));
      const end = stringArg("time_since", args, 2);
      const t2 = end === "" ? now(ctx) : parseTime(layout, end);
      return formatDuration(subTimes(t2, t1));
    },
  },
  {
    name: "time_now",
    args: [],
    returns: "string",
    description: "returns current time in RFC 3339 format",
    call: (_args, ctx) => formatRFC3339(now(ctx)),
  },
  {
    name: "time_now_utc",
    args: [],
    returns: "string",
    description: "returns current UTC time in RFC 3339 format",
    call: (_args, ctx) => formatRFC3339(toUTC(now(ctx))),
  },
  {
    name: "time_to_cron",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "converts a time (RFC 3339) to a cron expression (string)",
    call: (args) => {
      const c = civil(timeArg("time_to_cron", args, 0));
      return `${c.minute} ${c.hour} ${c.day} ${c.month} ${c.weekday}`;
    },
  },
  {
    name: "time_add",
    args: twoTimes,
    returns: "string",
    description: "adds duration (second string) to a time value (first string)",
    call: (args) => formatRFC3339(addDuration(timeArg("time_add", args, 0), durationArg("time_add", args, 1))),
  },
  {
    name: "time_parse",
    args: twoTimes,
    returns: "string",
    description: "changes a time value of a given layout to RFC 3339",
    call: (args) => {
      const layout = stringArg("time_parse", args, 0);
      const value = stringArg("time_parse", args, 1);
      if (typeof parseInt64(layout) === "bigint") {
        // A numeric layout means the value is epoch seconds.
        const epoch = parseInt64(value);
        if (typeof epoch === "string") throw goError(epoch);
        return formatRFC3339({ sec: epoch, nsec: 0, offset: 0 });
      }
      return formatRFC3339(parseTime(layout, value));
    },
  },
  {
    name: "time_utc",
    args: [{ types: ["string"] }],
    returns: "string",
    description: "calcutes time in UTC from a given time in RFC 3339 format",
    call: (args) => formatRFC3339(toUTC(timeArg("time_utc", args, 0))),
  },
  {
    name: "time_diff",
    args: twoTimes,
    returns: "string",
    description: "calculate the difference between a start and end date in RFC3339 format",
    call: (args) => formatDuration(subTimes(timeArg("time_diff", args, 1), timeArg("time_diff", args, 0))),
  },
  {
    name: "time_before",
    args: twoTimes,
    returns: "boolean",
    description: "checks if a time is before another time, both in RFC3339 format",
    call: (args) => compareTimes(timeArg("time_before", args, 0), timeArg("time_before", args, 1)) < 0,
  },
  {
    name: "time_after",
    args: twoTimes,
    returns: "boolean",
    description: "checks if a time is after another time, both in RFC3339 format",
    call: (args) => compareTimes(timeArg("time_after", args, 0), timeArg("time_after", args, 1)) > 0,
  },
  {
    name: "time_between",
    args: [{ types: ["string"] }, { types: ["string"] }, { types: ["string"] }],
    returns: "boolean",
    description: "checks if a time is between a start and end time, all in RFC3339 format",
    call: (args) => {
      const t = timeArg("time_between", args, 0);
      const start = timeArg("time_between", args, 1);
      const end = timeArg("time_between", args, 2);
      return compareTimes(t, start) > 0 && compareTimes(t, end) < 0;
    },
  },
  {
    name: "time_truncate",
    args: twoTimes,
    returns: "string",
    description: "returns the result of rounding time down to a multiple of duration",
    call: (args) =>
      formatRFC3339(truncateTime(timeArg("time_truncate", args, 0), durationArg("time_truncate", args, 1))),
  },
];
