import { test } from "node:test";
import assert from "node:assert/strict";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import snappy from "snappyjs";
import { protobufPushBody, pushRequestBytes } from "./protobuf-body.js";

/** Reads a message's fields with an independent decoder: field number → raw values, in order. */
function fields(bytes: Uint8Array): Map<number, (Uint8Array | bigint)[]> {
  const r = new BinaryReader(bytes);
  const out = new Map<number, (Uint8Array | bigint)[]>();
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    const value = wire === WireType.LengthDelimited ? r.bytes() : BigInt(r.uint64());
    out.set(no, [...(out.get(no) ?? []), value]);
  }
  return out;
}

const text = (b: Uint8Array | bigint | undefined): string => new TextDecoder().decode(b as Uint8Array);

test("a PushRequest as Loki's push.proto reads it: labels as LogQL text, timestamp, line, structured metadata", () => {
  const streams = [
    {
      labels: { job: "kube-bench", a: 'say "hi"' },
      entries: [
        { timestampNs: 1795312113_042000123n, line: "first", metadata: { node: "n1" } },
        { timestampNs: 1795312114_000000000n, line: "second" },
      ],
    },
  ];
  const request = fields(pushRequestBytes(streams));
  const stream = fields((request.get(1) ?? [])[0] as Uint8Array);
  assert.equal(text(stream.get(1)?.[0]), '{a="say \\"hi\\"", job="kube-bench"}');
  const [first, second] = (stream.get(2) ?? []).map((e) => fields(e as Uint8Array));
  const ts = fields(first?.get(1)?.[0] as Uint8Array);
  assert.deepEqual([ts.get(1)?.[0], ts.get(2)?.[0]], [1795312113n, 42000123n]);
  assert.equal(text(first?.get(2)?.[0]), "first");
  const pair = fields(first?.get(3)?.[0] as Uint8Array);
  assert.deepEqual([text(pair.get(1)?.[0]), text(pair.get(2)?.[0])], ["node", "n1"]);
  // A whole second: nanos is zero, so (as proto3 writes it) absent.
  assert.equal(fields(second?.get(1)?.[0] as Uint8Array).get(2), undefined);
  assert.equal(second?.get(3), undefined);
});

test("the body is the request, block-snappy compressed", () => {
  const streams = [{ labels: { job: "x" }, entries: [{ timestampNs: 1n, line: "y".repeat(500) }] }];
  const body = protobufPushBody(streams);
  assert.ok(body.length < 100, "500 repeated bytes compress");
  assert.deepEqual(snappy.uncompress(body), pushRequestBytes(streams));
});
