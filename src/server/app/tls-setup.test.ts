/** The CA `bylaw serve --register` puts in the webhooks' caBundle: the self-signed CA, --tls-ca-file, else the certificate file. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { selfSignedCertificate } from "../tls/self-signed.js";
import { resolveTls } from "./tls-setup.js";
import { recordingIo } from "../../../test/support/fake-io.js";

const quiet = recordingIo();

test("caPem: the self-signed CA; else --tls-ca-file; else the certificate file; an unreadable CA file is a flag error", async () => {
  const selfSigned = await resolveTls({ "self-signed": true, "dns-name": ["bylaw.bylaw.svc"] }, quiet);
  assert.ok(selfSigned.ok);
  assert.match(selfSigned.value.caPem(), /^-----BEGIN CERTIFICATE-----/);
  assert.notEqual(selfSigned.value.caPem(), selfSigned.value.cert, "the CA, not the serving certificate");

  const dir = mkdtempSync(join(tmpdir(), "bylaw-tls-setup-"));
  try {
    const bundle = selfSignedCertificate({ dnsNames: ["bylaw.bylaw.svc"], now: new Date() });
    writeFileSync(join(dir, "tls.crt"), bundle.cert);
    writeFileSync(join(dir, "tls.key"), bundle.key);
    writeFileSync(join(dir, "ca.crt"), bundle.caCert);
    const files = { "tls-cert-file": join(dir, "tls.crt"), "tls-key-file": join(dir, "tls.key") };
    const withCa = await resolveTls({ ...files, "tls-ca-file": join(dir, "ca.crt") }, quiet);
    assert.ok(withCa.ok);
    assert.equal(withCa.value.caPem(), bundle.caCert);
    withCa.value.close();
    const withoutCa = await resolveTls(files, quiet);
    assert.ok(withoutCa.ok);
    assert.equal(withoutCa.value.caPem(), bundle.cert);
    withoutCa.value.close();
    const missing = await resolveTls({ ...files, "tls-ca-file": join(dir, "nope.crt") }, quiet);
    assert.equal(missing.ok, false);
    assert.match(missing.ok ? "" : missing.error, /--tls-ca-file .*nope\.crt/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
