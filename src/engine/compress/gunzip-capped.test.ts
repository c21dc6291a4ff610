import { strict as assert } from "node:assert";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { gunzipCapped } from "./gunzip-capped.js";

test("gunzip returns the original bytes, across many input chunks", () => {
  const text = Array.from({ length: 20000 }, (_, i) => `line ${(i * 7919) % 10007}\n`).join("");
  const out = gunzipCapped(gzipSync(text), 1 << 20);
  assert.ok(out instanceof Uint8Array);
  assert.equal(new TextDecoder().decode(out), text);
});

test("a bomb stops at the cap with a message, whatever its trailer claims", () => {
  const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
  assert.ok(bomb.length < 100_000);
  const out = gunzipCapped(bomb, 8 * 1024 * 1024);
  assert.equal(typeof out, "string");
  assert.match(out as string, /more than 8388608 bytes uncompressed/);
  // A forged ISIZE (trailer) does not change that.
  const forged = Buffer.from(bomb);
  forged.writeUInt32LE(16, forged.length - 4);
  assert.match(gunzipCapped(forged, 8 * 1024 * 1024) as string, /more than/);
});

test("not gzip, truncated and corrupt data are messages, not exceptions", () => {
  assert.equal(gunzipCapped(new Uint8Array([1, 2, 3]), 100), "unexpected EOF");
  assert.equal(gunzipCapped(new TextEncoder().encode("plainly not gzip"), 100), "gzip: invalid header");
  const good = gzipSync("hello world, hello world");
  assert.equal(gunzipCapped(good.subarray(0, 14), 100), "unexpected EOF");
});
