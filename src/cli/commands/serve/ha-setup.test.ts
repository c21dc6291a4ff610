import { test } from "node:test";
import assert from "node:assert/strict";
import { setUpHa, withReadiness } from "./ha-setup.js";

test("readiness: ready only when the source and the certificate are, naming every reason", () => {
  const source = { readiness: () => ({ ok: false, reason: "policies not loaded: p.yaml line 3" }), name: () => "dir" };
  let cert: { ok: boolean; reason?: string } = {
    ok: false,
    reason: "no serving certificate: the Secret bylaw/bylaw-tls holds no certificate yet (the leader writes it)",
  };
  const both = withReadiness(source, () => cert);
  assert.deepEqual(both.readiness(), {
    ok: false,
    reason:
      "policies not loaded: p.yaml line 3; no serving certificate: the Secret bylaw/bylaw-tls holds no certificate yet (the leader writes it)",
  });
  assert.equal(both.name(), "dir", "the rest of the source is untouched");
  const loaded = withReadiness({ readiness: () => ({ ok: true }) }, () => cert);
  assert.equal(loaded.readiness().ok, false);
  cert = { ok: true };
  assert.deepEqual(loaded.readiness(), { ok: true });
});

test("flag errors name what to change", async () => {
  const cases: [Parameters<typeof setUpHa>[0], RegExp][] = [
    [
      { "tls-secret": "bylaw/bylaw-tls", "leader-elect": true, "self-signed": true },
      /use one of --tls-secret, --tls-cert-file/,
    ],
    [{ "tls-secret": "bylaw/bylaw-tls" }, /--tls-secret needs --leader-elect/],
    [
      { "leader-elect": true, "leader-elect-lease-duration": "soon" },
      /--leader-elect-lease-duration must be a duration/,
    ],
    [
      {
        "leader-elect": true,
        "leader-elect-lease-duration": "15s",
        "leader-elect-renew-deadline": "10s",
        "leader-elect-retry-period": "2s",
        "tls-renew-before": "15d",
        "tls-ca-overlap": "1m",
        "leader-elect-namespace": "bylaw",
        kubeconfig: "/nonexistent/kubeconfig",
      },
      /--leader-elect: .*nonexistent/,
    ],
  ];
  for (const [flags, message] of cases) {
    const r = await setUpHa(flags, () => undefined);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.error, message);
  }
  const off = await setUpHa({}, () => undefined);
  assert.ok(
    off.ok && off.value.elector === undefined && off.value.certificates === undefined && off.value.tls === undefined,
  );
});
