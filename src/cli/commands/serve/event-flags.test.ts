import { test } from "node:test";
import assert from "node:assert/strict";
import { eventSettings } from "./event-flags.js";

test("defaults: Kyverno's component names, 1000 queued Events, PolicyApplied and PolicySkipped omitted", () => {
  assert.deepEqual(eventSettings({}), {
    ok: true,
    value: { componentPrefix: "kyverno", maxQueued: 1000, omit: ["PolicyApplied", "PolicySkipped"] },
  });
});

test("each flag checked, with an error naming it", () => {
  assert.deepEqual(eventSettings({ "omit-events": "", "event-component-prefix": "bylaw" }), {
    ok: true,
    value: { componentPrefix: "bylaw", maxQueued: 1000, omit: [] },
  });
  const bad = [
    eventSettings({ "event-component-prefix": "Bylaw!" }),
    eventSettings({ "max-queued-events": "-1" }),
    eventSettings({ "omit-events": "PolicyViolation,Nope" }),
  ];
  assert.deepEqual(
    bad.map((r) => (r.ok ? "" : r.error.split(" ")[0])),
    ["--event-component-prefix", "--max-queued-events", "--omit-events"],
  );
  assert.match(bad[2]?.ok === false ? bad[2].error : "", /"Nope"/);
});
