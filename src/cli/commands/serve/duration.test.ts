import { test } from "node:test";
import assert from "node:assert/strict";
import { parseDuration } from "./duration.js";

test("serve's durations: Go's units plus days; malformed or zero ones are refused", () => {
  assert.equal(parseDuration("15s"), 15_000);
  assert.equal(parseDuration("500ms"), 500);
  assert.equal(parseDuration("1h30m"), 5_400_000);
  assert.equal(parseDuration("15d"), 15 * 86_400_000);
  assert.equal(parseDuration("1.5m"), 90_000);
  for (const bad of ["", "15", "s", "-1s", "0s", "1 h", "1y", "1h-"]) assert.equal(parseDuration(bad), undefined, bad);
});
