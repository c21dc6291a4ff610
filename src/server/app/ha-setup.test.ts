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

test("a connection that cannot be made is an error naming --leader-elect; no settings, nothing set up", async () => {
  const r = await setUpHa(
    {
      leaseName: "bylaw-admission",
      namespace: "bylaw",
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      tlsSecret: undefined,
      serviceName: undefined,
      dnsNames: [],
      renewBeforeMs: 15 * 86_400_000,
      caOverlapMs: 60_000,
      kubeconfig: "/nonexistent/kubeconfig",
    },
    () => undefined,
  );
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.error, /--leader-elect: .*nonexistent/);
  const off = await setUpHa(undefined, () => undefined);
  assert.ok(
    off.ok && off.value.elector === undefined && off.value.certificates === undefined && off.value.tls === undefined,
  );
});
