import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTlsFiles } from "./load-tls-files.js";
import { selfSignedCertificate } from "./self-signed.js";

const a = selfSignedCertificate({ dnsNames: ["a.svc"], now: new Date() });
const b = selfSignedCertificate({ dnsNames: ["b.svc"], now: new Date() });

describe("loadTlsFiles", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "bylaw-tls-"));
    const files: Record<string, string> = {
      "a.crt": a.cert,
      "a.key": a.key,
      "b.key": b.key,
      "text.crt": "hello, not a certificate\n",
      "broken.crt": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
      "broken.key": "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
      "chain.crt": a.cert + a.caCert,
    };
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    await mkdir(join(dir, "adir"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("a matching pair loads, with or without the chain after the leaf", async () => {
    const r = await loadTlsFiles(join(dir, "a.crt"), join(dir, "a.key"));
    assert.deepEqual(r, { ok: true, value: { cert: a.cert, key: a.key } });
    const chain = await loadTlsFiles(join(dir, "chain.crt"), join(dir, "a.key"));
    assert.equal(chain.ok, true);
  });

  const failures: [string, string, string, string, RegExp][] = [
    ["missing certificate", "nope.crt", "a.key", "tls-file-missing", /certificate file .*nope\.crt does not exist/],
    ["missing key", "a.crt", "nope.key", "tls-file-missing", /private key file .*nope\.key does not exist/],
    ["a directory", "adir", "a.key", "tls-file-unreadable", /is a directory/],
    ["certificate not PEM", "text.crt", "a.key", "tls-not-pem", /text\.crt is not a PEM certificate/],
    ["key not PEM", "a.crt", "text.crt", "tls-not-pem", /text\.crt is not a PEM private key/],
    [
      "certificate PEM that does not parse",
      "broken.crt",
      "a.key",
      "tls-invalid-certificate",
      /broken\.crt cannot be parsed/,
    ],
    ["key PEM that does not parse", "a.crt", "broken.key", "tls-invalid-key", /broken\.key cannot be parsed/],
    [
      "key of another certificate",
      "a.crt",
      "b.key",
      "tls-key-mismatch",
      /b\.key does not match the certificate in .*a\.crt/,
    ],
  ];
  for (const [name, cert, key, kind, message] of failures) {
    test(`refuses: ${name}`, async () => {
      const r = await loadTlsFiles(join(dir, cert), join(dir, key));
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.error.kind, kind);
      assert.match(r.error.message, message);
    });
  }
});
