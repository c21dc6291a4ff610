import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uiFrom } from "./ui-flags.js";

test("--ui-port is off when absent, a port number when given, and refused otherwise", () => {
  assert.deepEqual(uiFrom({}, {}), { ok: true, value: undefined });
  for (const bad of ["", "x", "-1", "65536", "1.5"]) {
    const r = uiFrom({ "ui-port": bad }, {});
    assert.equal(r.ok, false, bad);
    if (!r.ok) assert.match(r.error, /--ui-port must be a port number/);
  }
});

test("--ui-port needs the API server's address, and says so", () => {
  const r = uiFrom({ "ui-port": "8443", kubeconfig: join(tmpdir(), "no-such-kubeconfig") }, {});
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.error, /^--ui-port needs the API server: /);

  const dir = mkdtempSync(join(tmpdir(), "bylaw-ui-flags-"));
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true } }]
users: [{ name: u, user: { token: bylaws-own } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
  );
  const ok = uiFrom({ "ui-port": "0", kubeconfig }, {});
  assert.equal(ok.ok, true);
  if (ok.ok) {
    assert.equal(ok.value?.port, 0);
    ok.value?.reads.close();
  }
});
