import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_TLS_POLICY, tlsPolicyFrom } from "./tls-policy.js";

describe("tlsPolicyFrom", () => {
  test("defaults: TLS 1.2 and up, forward-secret AEAD suites only", () => {
    assert.deepEqual(tlsPolicyFrom(undefined, undefined), { ok: true, value: DEFAULT_TLS_POLICY });
    for (const suite of DEFAULT_TLS_POLICY.ciphers.split(":"))
      assert.match(
        suite,
        /^(TLS_(AES_\d+_GCM|CHACHA20_POLY1305)_SHA\d+|ECDHE-(RSA|ECDSA)-(AES\d+-GCM-SHA\d+|CHACHA20-POLY1305))$/,
      );
  });

  test("versions: 1.2/1.3 in Go's, OpenSSL's or plain spelling; anything lower is refused", () => {
    for (const v of ["1.3", "TLSv1.3", "VersionTLS13"])
      assert.deepEqual(tlsPolicyFrom(v, undefined), {
        ok: true,
        value: { ...DEFAULT_TLS_POLICY, minVersion: "TLSv1.3" },
      });
    for (const v of ["1.1", "TLSv1", "ssl3"]) assert.equal(tlsPolicyFrom(v, undefined).ok, false, v);
  });

  test("suites by IANA or OpenSSL name; an unknown name or an OpenSSL expression is an error, not dropped", () => {
    assert.deepEqual(tlsPolicyFrom(undefined, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ECDHE-RSA-CHACHA20-POLY1305"), {
      ok: true,
      value: { minVersion: "TLSv1.2", ciphers: "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305" },
    });
    for (const bad of ["NOT-A-SUITE", "HIGH", "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "DEFAULT@SECLEVEL=0", " , "]) {
      const r = tlsPolicyFrom(undefined, bad);
      assert.equal(r.ok, false, bad);
    }
  });
});
