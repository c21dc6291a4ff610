/** Certificate chains as cosign checks a certificate attestor's `certChain` (Go's x509 wording for each refusal). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { verifyCertificateChain } from "./certificate-chain.js";
import { LEAF_PEM, LEAF_VALID_AT, OTHER_ROOT_PEM, ROOT_PEM } from "../../test/support/test-certs.js";

const check = (chain: string, nowMillis = LEAF_VALID_AT) =>
  verifyCertificateChain({ certificate: LEAF_PEM, chain, nowMillis });

test("a leaf issued by the chain's root holds", () => {
  assert.deepEqual(check(ROOT_PEM), { ok: true, value: undefined });
});

test("a leaf another root issued is signed by an unknown authority", () => {
  assert.deepEqual(check(OTHER_ROOT_PEM), { ok: true, value: "x509: certificate signed by unknown authority" });
  assert.deepEqual(
    check(`${ROOT_PEM}${OTHER_ROOT_PEM}`),
    { ok: true, value: "x509: certificate signed by unknown authority" },
    "the root is the chain's last certificate",
  );
});

test("a leaf not valid now is refused: no transparency log vouches for when it signed", () => {
  const later = check(ROOT_PEM, Date.UTC(2200, 0, 1));
  assert.ok(later.ok);
  assert.match(later.value ?? "", /^x509: certificate has expired or is not yet valid: the certificate is valid from /);
});

test("an unreadable certificate is an error, not a refusal", () => {
  const r = verifyCertificateChain({
    certificate: "-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----",
    chain: ROOT_PEM,
    nowMillis: LEAF_VALID_AT,
  });
  assert.equal(r.ok, false);
  assert.equal(verifyCertificateChain({ certificate: LEAF_PEM, chain: "", nowMillis: LEAF_VALID_AT }).ok, false);
});
