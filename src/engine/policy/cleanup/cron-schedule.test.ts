import { test } from "node:test";
import assert from "node:assert/strict";
import { isCronSchedule } from "./cron-schedule.js";

test("standard five-field specs, names, steps, ranges, descriptors and a time zone are cron schedules", () => {
  for (const s of [
    "* * * * *",
    "*/5 * * * *",
    "0 0 1 1 *",
    "0-30/10 8-18 ? JAN-mar mon-FRI",
    "59 23 31 12 6",
    "1,2,3 4 5 6 0",
    "@hourly",
    "@every 1h30m",
    "CRON_TZ=Europe/Paris 0 3 * * *",
    "TZ=UTC @daily",
  ])
    assert.equal(isCronSchedule(s), true, s);
});

test("wrong field counts, out-of-range values, bad steps and unknown descriptors are not", () => {
  for (const s of [
    "",
    "* * * *",
    "* * * * * *",
    "60 * * * *",
    "* 24 * * *",
    "* * 0 * *",
    "* * * 13 *",
    "* * * * 7",
    "*/0 * * * *",
    "5-1 * * * *",
    "a * * * *",
    "@fortnightly",
    "@every soon",
    "TZ= * * * * *",
  ])
    assert.equal(isCronSchedule(s), false, s);
});
