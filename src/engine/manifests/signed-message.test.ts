/** The message annotation: base64 of a gzip of the signed blob, itself a tar.gz of YAML files (or raw YAML). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { readSignedMessage } from "./signed-message.js";
import { readTar } from "./tar.js";
import { tarOf } from "../../../test/support/signed-manifests.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const message = (blob: Uint8Array): string => gzipSync(blob).toString("base64");
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

describe("signed message", () => {
  test("every document of the archive's YAML files, the blob being what was signed", () => {
    const yaml =
      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n";
    const blob = gzipSync(tarOf("dir/cm.yaml", enc(yaml)));
    const r = readSignedMessage(message(blob));
    assert.equal(r.kind, "ok");
    assert.ok(r.kind === "ok");
    assert.deepEqual(
      r.manifests.map((m) => (m["metadata"] as { name: string }).name),
      ["a", "b"],
    );
    assert.deepEqual([...r.signed], [...blob]);
  });

  test("files that are not .yaml/.yml, or whose first document has no kind, are not manifests", () => {
    const tar = concat(tarOf("notes.txt", enc("kind: ConfigMap\n")).subarray(0, 1024), tarOf("x.yml", enc("a: 1\n")));
    const r = readSignedMessage(message(gzipSync(tar)));
    assert.ok(r.kind === "ok");
    assert.deepEqual(r.manifests, []);
  });

  test("a blob that is not gzip is read as YAML", () => {
    const r = readSignedMessage(message(enc("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n")));
    assert.ok(r.kind === "ok");
    assert.equal(r.manifests[0]?.["kind"], "Secret");
  });

  test("no annotation is 'message not found'; bad base64 or gzip is an error with Go's words", () => {
    assert.deepEqual(readSignedMessage(undefined), { kind: "not-found", message: "message not found" });
    assert.deepEqual(readSignedMessage("%%%"), {
      kind: "error",
      message: "failed to decode base64 message in the annotation: illegal base64 data at input byte 0",
    });
    assert.equal(readSignedMessage(Buffer.from("not gzip at all").toString("base64")).kind, "error");
  });

  test("a gzip bomb is refused, not inflated", () => {
    const bomb = gzipSync(gzipSync(Buffer.alloc(20 * 1024 * 1024)));
    const r = readSignedMessage(bomb.toString("base64"));
    assert.equal(r.kind, "error");
    assert.match(r.kind === "error" ? r.message : "", /is more than 8388608 bytes uncompressed, more than Bylaw reads/);
  });

  test("tar: long names through PAX records; unknown entry types are refused", () => {
    const pax = tarOf("PaxHeader", enc("30 path=some/long/name/x.yaml\n"));
    pax[156] = "x".charCodeAt(0);
    let sum = 0;
    pax.fill(32, 148, 156);
    for (let i = 0; i < 512; i++) sum += pax[i] ?? 0;
    pax.set(enc(`${sum.toString(8).padStart(6, "0")}\0 `), 148);
    const r = readTar(concat(pax.subarray(0, 1024), tarOf("short", enc("kind: A\n"))));
    assert.ok(r.ok);
    assert.deepEqual(
      r.files.map((f) => f.name),
      ["some/long/name/x.yaml"],
    );
    const link = tarOf("l", enc(""));
    link[156] = "2".charCodeAt(0);
    assert.deepEqual(readTar(link), { ok: false, error: "faced uknown type 2 in l while decompressing tar gz" });
  });
});
