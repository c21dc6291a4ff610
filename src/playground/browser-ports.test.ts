import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { browserHasher, browserRandom, browserSignatures } from "./browser-ports.js";

test("the browser's hashes are Node's, for ASCII, multi-byte text and the empty string", () => {
  for (const text of ["", "abc", "nginx:1.27", "ünïcödé 🚀 漢字", "x".repeat(100_000)]) {
    for (const [port, algorithm] of [
      [(t: string) => browserHasher.sha256Hex(t), "sha256"],
      [(t: string) => browserHasher.sha1Hex(t), "sha1"],
      [(t: string) => browserHasher.md5Hex(t), "md5"],
    ] as const)
      assert.equal(
        port(text),
        createHash(algorithm).update(text, "utf8").digest("hex"),
        `${algorithm}(${text.slice(0, 20)})`,
      );
  }
});

test("random numbers are in [0, 1) and vary", () => {
  const seen = new Set<number>();
  for (let i = 0; i < 1000; i++) {
    const n = browserRandom.next();
    assert.ok(n >= 0 && n < 1, String(n));
    seen.add(n);
  }
  assert.ok(seen.size > 990);
});

test("a signature check is an error naming what to run instead, never a pass", () => {
  const got = browserSignatures.verify({ publicKey: "k", data: new Uint8Array(), signature: new Uint8Array() });
  assert.equal(got.ok, false);
  if (!got.ok) assert.match(got.error.message, /bylaw apply/);
});
