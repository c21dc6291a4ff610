import { test } from "node:test";
import assert from "node:assert/strict";
import { pemPublicKeys } from "./pem-public-keys.js";

test("several PEM public keys in one string are cut into one key each; one key stays one; text without a key gives none", () => {
  const a = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----";
  const b = "-----BEGIN PUBLIC KEY-----\nBBBB\n-----END PUBLIC KEY-----";
  assert.deepEqual(pemPublicKeys(`${a}\n${b}\n`), [`${a}\n`, `${b}\n`]);
  assert.deepEqual(pemPublicKeys(`  ${a}`), [`${a}\n`]);
  assert.deepEqual(pemPublicKeys("k8s://ns/secret"), []);
});
