import { test } from "node:test";
import assert from "node:assert/strict";
import { haSettings } from "./ha-flags.js";

test("flag errors name what to change", () => {
  const cases: [Parameters<typeof haSettings>[0], RegExp][] = [
    [
      { "tls-secret": "bylaw/bylaw-tls", "leader-elect": true, "self-signed": true },
      /use one of --tls-secret, --tls-cert-file/,
    ],
    [{ "tls-secret": "bylaw/bylaw-tls" }, /--tls-secret needs --leader-elect/],
    [
      { "leader-elect": true, "leader-elect-lease-duration": "soon" },
      /--leader-elect-lease-duration must be a duration/,
    ],
  ];
  for (const [flags, message] of cases) {
    const r = haSettings(flags);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error, message);
  }
  const off = haSettings({});
  assert.ok(off.ok && off.value === undefined);
});

test("the durations and names the flags give become the settings", () => {
  const r = haSettings({
    "leader-elect": true,
    "leader-elect-lease-duration": "15s",
    "leader-elect-renew-deadline": "10s",
    "leader-elect-retry-period": "2s",
    "tls-renew-before": "15d",
    "tls-ca-overlap": "1m",
    "leader-elect-namespace": "bylaw",
    "tls-secret": "bylaw-tls",
    "dns-name": ["bylaw.example"],
  });
  assert.ok(r.ok && r.value !== undefined);
  assert.equal(r.value.namespace, "bylaw");
  assert.equal(r.value.leaseName, "bylaw-admission");
  assert.deepEqual([r.value.leaseDurationMs, r.value.renewDeadlineMs, r.value.retryPeriodMs], [15_000, 10_000, 2_000]);
  assert.deepEqual([r.value.renewBeforeMs, r.value.caOverlapMs], [15 * 86_400_000, 60_000]);
  assert.equal(r.value.tlsSecret, "bylaw-tls");
  assert.deepEqual(r.value.dnsNames, ["bylaw.example"]);
});
