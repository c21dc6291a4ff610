import assert from "node:assert/strict";
import { test } from "node:test";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { rateLimitsFrom } from "./rate-limit-flags.js";

test("the client budgets default to Kyverno's: controllers 100/200, reports 300/300, Events 1000/2000", () => {
  assert.deepEqual(rateLimitsFrom({}), {
    ok: true,
    value: { client: { qps: 100, burst: 200 }, reports: { qps: 300, burst: 300 }, events: { qps: 1000, burst: 2000 } },
  });
});

test("each flag sets its own client's budget; 0 is client-go's default (5 a second, burst 10), as in Kyverno", () => {
  const r = rateLimitsFrom({
    "client-rate-limit-qps": "2.5",
    "client-rate-limit-burst": "7",
    "reports-rate-limit-qps": "0",
    "reports-rate-limit-burst": "0",
    "events-rate-limit-qps": "50",
  });
  assert.deepEqual(r, {
    ok: true,
    value: { client: { qps: 2.5, burst: 7 }, reports: { qps: 5, burst: 10 }, events: { qps: 50, burst: 2000 } },
  });
});

test("a budget that is not a number in range is refused, naming the flag and the value", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ "client-rate-limit-qps": "fast" }, /^--client-rate-limit-qps must be a number .* \(got "fast"\)$/],
    [{ "client-rate-limit-qps": "" }, /^--client-rate-limit-qps must be/],
    [{ "reports-rate-limit-qps": "-1" }, /^--reports-rate-limit-qps must be/],
    [{ "events-rate-limit-qps": "1e9" }, /^--events-rate-limit-qps must be/],
    [{ "client-rate-limit-burst": "1.5" }, /^--client-rate-limit-burst must be a whole number .* \(got "1.5"\)$/],
    [{ "events-rate-limit-burst": "-2" }, /^--events-rate-limit-burst must be/],
  ];
  for (const [values, message] of cases) {
    const r = rateLimitsFrom(values);
    assert.equal(r.ok, false, JSON.stringify(values));
    assert.match(r.ok ? "" : r.error, message);
  }
});

test("bylaw serve refuses a bad budget before it starts: exit 2, one line naming the flag", async () => {
  const io = recordingIo();
  const code = await main(["serve", "--policies", "does-not-matter", "--events-rate-limit-burst", "lots"], io);
  assert.equal(code, 2);
  assert.match(io.stderr.join("\n"), /^bylaw serve: --events-rate-limit-burst must be a whole number .*"lots"/);
});

test("bylaw serve --help names Kyverno's flags beside Bylaw's", async () => {
  const io = recordingIo();
  assert.equal(await main(["serve", "--help"], io), 0);
  const help = io.stdout.join("\n");
  for (const flag of [
    "--clientRateLimitQPS",
    "--clientRateLimitBurst",
    "--eventsRateLimitQPS",
    "--eventsRateLimitBurst",
  ])
    assert.ok(help.includes(flag), flag);
});
