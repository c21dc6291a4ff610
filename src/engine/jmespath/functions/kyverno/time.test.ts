import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { JsonValue } from "../../../api/json.js";
import { JmesPathError } from "../../types.js";
import { call, fakeContext } from "../../../../../test/support/fake-function-context.js";
import { timeFunctions } from "./time.js";

type Case = readonly [name: string, args: readonly JsonValue[], want: JsonValue];

/** The fake clock reads 2024-02-29T12:34:56.789Z. */
const cases: readonly Case[] = [
  ["time_now", [], "2024-02-29T12:34:56Z"],
  ["time_now_utc", [], "2024-02-29T12:34:56Z"],
  ["time_since", ["", "2022-04-10T03:14:05-07:00", "2022-04-11T03:14:05-07:00"], "24h0m0s"],
  [
    "time_since",
    ["Mon Jan _2 15:04:05 MST 2006", "Mon Jan 02 15:04:05 MST 2021", "Mon Jan 10 03:14:16 MST 2021"],
    "180h10m11s",
  ],
  ["time_since", ["2006-Jan-02", "2020-Jan-14", "2020-Jan-17"], "72h0m0s"],
  ["time_since", ["", "2024-02-28T12:34:56Z", ""], "24h0m0.789s"],
  ["time_since", ["", "2024-02-29T12:34:56.5Z", "2024-02-29T12:34:57Z"], "500ms"],
  ["time_since", ["2006-01-02 3:04PM", "2024-01-01 11:00AM", "2024-01-01 1:30PM"], "2h30m0s"],
  ["time_since", ["02/01/2006 15:04:05.000", "01/02/2024 10:00:00.250", "01/02/2024 10:00:01.000"], "750ms"],
  [
    "time_since",
    ["Jan 2, 2006 at 3:04pm (MST)", "Feb 3, 2013 at 7:54pm (PST)", "Feb 3, 2013 at 8:54pm (PST)"],
    "1h0m0s",
  ],
  ["time_add", ["2023-01-12T12:37:56-05:00", "6h"], "2023-01-12T18:37:56-05:00"],
  ["time_add", ["2023-12-31T23:00:00Z", "1h30m"], "2024-01-01T00:30:00Z"],
  ["time_add", ["2023-01-12T12:37:56Z", "-1.5h"], "2023-01-12T11:07:56Z"],
  ["time_parse", ["Mon Jan 02 2006 15:04:05 -0700", "Fri Jun 22 2022 17:45:00 +0100"], "2022-06-22T17:45:00+01:00"],
  ["time_parse", ["2006-01-02T15:04:05Z07:00", "2021-01-02T15:04:05-07:00"], "2021-01-02T15:04:05-07:00"],
  ["time_parse", ["1702691171", "1702691171"], "2023-12-16T01:46:11Z"],
  ["time_parse", ["0", "-1"], "1969-12-31T23:59:59Z"],
  ["time_parse", ["2006-01-02", "2023-03-04"], "2023-03-04T00:00:00Z"],
  ["time_parse", ["15:04", "10:30"], "0000-01-01T10:30:00Z"],
  ["time_parse", ["02 Jan 06 15:04 MST", "05 Mar 99 07:08 UTC"], "1999-03-05T07:08:00Z"],
  [
    "time_parse",
    ["2006-01-02T15:04:05.999999999Z07:00", "2023-01-01T00:00:00.123456789+05:30"],
    "2023-01-01T00:00:00+05:30",
  ],
  ["time_parse", ["2006-002", "2024-060"], "2024-02-29T00:00:00Z"],
  ["time_parse", ["Monday, 02-Jan-06 15:04:05 MST", "Sunday, 05-Feb-23 01:02:03 GMT+2"], "2023-02-05T01:02:03+02:00"],
  ["time_to_cron", ["2022-04-11T03:14:05-07:00"], "14 3 11 4 1"],
  ["time_to_cron", ["2024-12-29T00:00:00Z"], "0 0 29 12 0"],
  ["time_utc", ["2021-01-02T18:04:05-05:00"], "2021-01-02T23:04:05Z"],
  ["time_utc", ["2021-01-02T02:04:05+08:30"], "2021-01-01T17:34:05Z"],
  ["time_diff", ["2023-01-10T00:00:00Z", "2023-01-11T00:00:00Z"], "24h0m0s"],
  ["time_diff", ["2023-01-12T00:00:00Z", "2023-01-11T00:00:00Z"], "-24h0m0s"],
  ["time_diff", ["0001-01-01T00:00:00Z", "9999-01-01T00:00:00Z"], "2562047h47m16.854775807s"], // saturates
  ["time_before", ["2023-01-12T19:05:59Z", "2023-01-13T19:05:59Z"], true],
  ["time_before", ["2023-01-12T19:05:59Z", "2023-01-11T19:05:59Z"], false],
  ["time_after", ["2023-01-12T14:07:55-05:00", "2023-01-12T19:05:59Z"], true],
  ["time_after", ["2023-01-12T19:05:59Z", "2023-01-13T19:05:59Z"], false],
  ["time_between", ["2023-01-12T19:05:59Z", "2023-01-01T19:05:59Z", "2023-01-15T19:05:59Z"], true],
  ["time_between", ["2023-01-12T19:05:59Z", "2023-01-01T19:05:59Z", "2023-01-11T19:05:59Z"], false],
  ["time_between", ["2023-01-01T19:05:59Z", "2023-01-01T19:05:59Z", "2023-01-11T19:05:59Z"], false], // strict
  ["time_truncate", ["2023-01-12T17:37:00Z", "1h"], "2023-01-12T17:00:00Z"],
  ["time_truncate", ["2023-01-12T17:37:00Z", "2h"], "2023-01-12T16:00:00Z"],
  ["time_truncate", ["2021-01-02T23:04:05Z", "2h"], "2021-01-02T22:00:00Z"],
  ["time_truncate", ["2023-01-12T17:37:00Z", "168h"], "2023-01-09T00:00:00Z"], // weeks start on Monday (Go's zero time)
  ["time_truncate", ["2023-01-12T17:37:00+05:30", "24h"], "2023-01-12T05:30:00+05:30"], // absolute, not local, days
  ["time_truncate", ["2023-01-12T17:37:00Z", "0s"], "2023-01-12T17:37:00Z"],
];

describe("time functions", () => {
  for (const [name, args, want] of cases) {
    test(`${name}(${args.map((a) => JSON.stringify(a)).join(", ")}) = ${JSON.stringify(want)}`, () => {
      assert.deepEqual(call(timeFunctions, name, args, fakeContext()), want);
    });
  }

  const errors: ReadonlyArray<readonly [string, readonly JsonValue[], string]> = [
    ["time_add", ["bad", "1h"], 'parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as "2006"'],
    ["time_add", ["2023-01-12T12:37:56Z", "1d"], 'time: unknown unit "d" in duration "1d"'],
    [
      "time_utc",
      ["2023-01-12 12:37:56Z"],
      'parsing time "2023-01-12 12:37:56Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 12:37:56Z" as "T"',
    ],
    ["time_utc", ["2023-02-30T00:00:00Z"], 'parsing time "2023-02-30T00:00:00Z": day out of range'],
    ["time_utc", ["2023-01-01T25:00:00Z"], 'parsing time "2023-01-01T25:00:00Z": hour out of range'],
    ["time_utc", ["2023-01-01T00:00:00Zjunk"], 'parsing time "2023-01-01T00:00:00Zjunk": extra text: "junk"'],
    ["time_parse", ["1", "abc"], 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ["time_parse", ["Jan 2", "Foo 2"], 'parsing time "Foo 2" as "Jan 2": cannot parse "Foo 2" as "Jan"'],
    ["time_since", ["", "x", ""], 'parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"'],
  ];
  for (const [name, args, message] of errors) {
    test(`${name}(${JSON.stringify(args)}) fails with Go's message`, () => {
      assert.throws(
        () => call(timeFunctions, name, args),
        (e: unknown) => e instanceof JmesPathError && e.message === message,
      );
    });
  }
});
