import { strict as assert } from "node:assert";
import { generateKeyPairSync, sign } from "node:crypto";
import { test } from "node:test";
import { nodeSignatures } from "./node-ports.js";

const data = new TextEncoder().encode('{"critical":{"image":{"docker-manifest-digest":"sha256:ab"}}}');

test("an ECDSA P-256 signature (DER, sha256) holds for its data and key, and not for other data", () => {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
  const signature = sign("sha256", data, privateKey);
  assert.deepEqual(nodeSignatures.verify({ publicKey: pem, data, signature }), { ok: true, value: true });
  const other = new TextEncoder().encode("something else");
  assert.deepEqual(nodeSignatures.verify({ publicKey: pem, data: other, signature }), { ok: true, value: false });
});

test("the hash named is the one checked: a sha512 signature does not hold as sha256", () => {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
  const signature = sign("sha512", data, privateKey);
  assert.deepEqual(nodeSignatures.verify({ publicKey: pem, data, signature, hash: "sha512" }), {
    ok: true,
    value: true,
  });
  assert.deepEqual(nodeSignatures.verify({ publicKey: pem, data, signature }), { ok: true, value: false });
});

test("Ed25519 keys sign the bytes themselves", () => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
  assert.deepEqual(nodeSignatures.verify({ publicKey: pem, data, signature: sign(null, data, privateKey) }), {
    ok: true,
    value: true,
  });
});

test("a key that cannot be read is an error naming the reason, not a failed signature", () => {
  const r = nodeSignatures.verify({
    publicKey: "-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----",
    data,
    signature: new Uint8Array([1]),
  });
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.error.message, /public key cannot be read/);
});
