/**
 * Loki's protobuf push body: a logproto.PushRequest (Loki's pkg/push/push.proto), block-snappy
 * compressed, sent as Content-Type application/x-protobuf. Only the fields a client sets are written:
 *
 *   PushRequest      { repeated StreamAdapter streams = 1; }
 *   StreamAdapter    { string labels = 1; repeated EntryAdapter entries = 2; }
 *   EntryAdapter     { google.protobuf.Timestamp timestamp = 1; string line = 2;
 *                      repeated LabelPairAdapter structuredMetadata = 3; }
 *   Timestamp        { int64 seconds = 1; int32 nanos = 2; }
 *   LabelPairAdapter { string name = 1; string value = 2; }
 */
import snappy from "snappyjs";
import { labelSetText, type LokiEntry, type LokiStream } from "./loki-stream.js";

const utf8 = new TextEncoder();
const LENGTH_DELIMITED = 2;
const VARINT = 0;

function varint(value: bigint): number[] {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

function tag(field: number, wire: number): number[] {
  return varint(BigInt((field << 3) | wire));
}

/** A length-delimited field: a string's UTF-8 or an embedded message. */
function bytesField(field: number, bytes: Uint8Array): Uint8Array[] {
  return [Uint8Array.from([...tag(field, LENGTH_DELIMITED), ...varint(BigInt(bytes.length))]), bytes];
}

function varintField(field: number, value: bigint): Uint8Array[] {
  return value === 0n ? [] : [Uint8Array.from([...tag(field, VARINT), ...varint(value)])];
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function entryMessage(entry: LokiEntry): Uint8Array {
  const seconds = entry.timestampNs / 1_000_000_000n;
  const nanos = entry.timestampNs % 1_000_000_000n;
  const timestamp = concat([...varintField(1, seconds), ...varintField(2, nanos)]);
  const metadata = Object.entries(entry.metadata ?? {}).flatMap(([name, value]) =>
    bytesField(3, concat([...bytesField(1, utf8.encode(name)), ...bytesField(2, utf8.encode(value))])),
  );
  return concat([...bytesField(1, timestamp), ...bytesField(2, utf8.encode(entry.line)), ...metadata]);
}

function streamMessage(stream: LokiStream): Uint8Array {
  return concat([
    ...bytesField(1, utf8.encode(labelSetText(stream.labels))),
    ...stream.entries.flatMap((e) => bytesField(2, entryMessage(e))),
  ]);
}

/** The PushRequest's bytes, before compression (tests decode them). */
export function pushRequestBytes(streams: readonly LokiStream[]): Uint8Array {
  return concat(streams.flatMap((s) => bytesField(1, streamMessage(s))));
}

/** The body Loki reads when the Content-Type is not JSON: the PushRequest, block-snappy compressed. */
export function protobufPushBody(streams: readonly LokiStream[]): Uint8Array {
  return snappy.compress(pushRequestBytes(streams));
}
