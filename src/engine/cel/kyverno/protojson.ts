/**
 * A protocol buffer message read from JSON as Go's protojson.Unmarshal reads it (how Kyverno's CLI
 * reads an Envoy payload): a field is named by its JSON name or its proto name; an unknown field,
 * a field given twice, two fields of one oneof, or a value of the wrong type is refused in
 * protojson's words with its place ("proto: (line L:C): unknown field \"x\""); `null` leaves a field
 * unset; 64-bit and 32-bit integers are numbers or strings holding an integer (1e2 is 100); an enum
 * is its value's name or number; bytes are base64 (standard or URL alphabet, padded or not); a
 * Timestamp is an RFC 3339 string; a Struct any JSON object. A google.protobuf.Any is not read
 * (Bylaw does not know the types it may name): a payload with one is refused, naming it.
 *
 * protojson's errors begin "proto:" and a non-breaking space (Go's protobuf picks the space per
 * build to keep callers from matching its texts; the Kyverno 1.19.0 CLI Bylaw is checked beside
 * prints U+00A0).
 */
import type { JsonValue } from "../../api/json.js";
import { base64Bytes } from "./http-request.js";
import { parsePositionedJson, place, ProtoJsonError, type JsonNode } from "./positioned-json.js";
import type { ProtoField, ProtoMessage, ProtoRegistry, ProtoType } from "./proto-messages.js";
import { UnsignedInt } from "@marcbachmann/cel-js/evaluator";

type Decoded<T> = { ok: true; value: T } | { ok: false; error: string };

const PREFIX = "proto:\u00a0";

export function decodeProtoJson(registry: ProtoRegistry, message: string, text: string): Decoded<ProtoMessage> {
  try {
    const { doc, trailing } = parsePositionedJson(text);
    const value = new Reader(registry, text).message(message, doc);
    if (trailing !== undefined) throw trailing;
    return { ok: true, value };
  } catch (e) {
    if (e instanceof ProtoJsonError) return { ok: false, error: PREFIX + e.message };
    throw e;
  }
}

const RANGES = {
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
} as const;

/** The integer a JSON number (or a string holding one) denotes exactly, or undefined (a fraction, not a number). */
function integral(text: string): bigint | undefined {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) return undefined;
  const [, sign = "", whole = "", frac = "", exp = "0"] = m;
  let digits = whole + frac;
  let shift = Number(exp) - frac.length;
  if (shift > 400) return undefined;
  while (shift < 0 && digits.endsWith("0")) {
    digits = digits.slice(0, -1);
    shift++;
  }
  if (shift < 0) return undefined;
  return BigInt(sign + (digits === "" ? "0" : digits)) * 10n ** BigInt(shift);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 time (protojson's Timestamp), "range" before year 1, or undefined. Sub-millisecond
 * digits are dropped (a JavaScript Date).
 */
function timestamp(s: string): Date | "range" | undefined {
  const m = RFC3339.exec(s);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const ms = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3));
  const offset = m[8] === "Z" ? 0 : (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (h > 23 || mi > 59 || sec > 59) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, sec, ms);
  // A month or day out of range (2023-02-30) is refused, not carried over.
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return undefined;
  if (y < 1) return "range";
  return new Date(date.getTime() - offset * 60_000);
}

/** Go's base64 as protojson reads bytes: URL alphabet when it has - or _, padding optional. */
function bytes(s: string): Uint8Array | undefined {
  if (/[\r\n]/.test(s)) return undefined;
  let std = /[-_]/.test(s) ? s.replace(/-/g, "+").replace(/_/g, "/") : s;
  if (std.length % 4 !== 0 && !std.includes("=")) std += "=".repeat(4 - (std.length % 4));
  try {
    return base64Bytes(std);
  } catch {
    return undefined;
  }
}

function plainJson(node: JsonNode): JsonValue {
  switch (node.kind) {
    case "string":
      return node.value;
    case "number":
      return Number(node.raw);
    case "true":
      return true;
    case "false":
      return false;
    case "null":
      return null;
    case "array":
      return node.items.map(plainJson);
    case "object":
      return Object.fromEntries(node.entries.map((e) => [e.key, plainJson(e.value)]));
  }
}

class Reader {
  constructor(
    private readonly registry: ProtoRegistry,
    private readonly text: string,
  ) {}

  private fail(pos: number, what: string): never {
    throw new ProtoJsonError(`${place(this.text, pos)}: ${what}`);
  }

  private unexpected(node: JsonNode): never {
    throw new ProtoJsonError(`syntax error ${place(this.text, node.pos)}: unexpected token ${node.raw}`);
  }

  message(name: string, node: JsonNode): ProtoMessage {
    if (node.kind !== "object") return this.unexpected(node);
    const schema = this.registry.schema(name);
    const values: Record<string, unknown> = {};
    const seen = new Set<string>();
    const oneofs = new Set<string>();
    for (const { key, keyPos, value } of node.entries) {
      const f = schema.fields.find((x) => x.json === key) ?? schema.fields.find((x) => x.name === key);
      if (f === undefined) return this.fail(keyPos, `unknown field ${JSON.stringify(key)}`);
      if (seen.has(f.name)) return this.fail(keyPos, `duplicate field ${JSON.stringify(key)}`);
      seen.add(f.name);
      if (f.oneof !== undefined) {
        if (oneofs.has(f.oneof))
          return this.fail(keyPos, `error parsing ${JSON.stringify(key)}, oneof ${name}.${f.oneof} is already set`);
        oneofs.add(f.oneof);
      }
      if (value.kind === "null") continue;
      values[f.name] = this.value(f, f.type, value);
    }
    return this.registry.create(name, values);
  }

  private value(f: ProtoField, type: ProtoType, node: JsonNode): unknown {
    const invalid = (kind: string): never =>
      this.fail(node.pos, `invalid value for ${kind} field ${f.json}: ${node.raw}`);
    if (typeof type === "object") {
      if ("message" in type) return this.message(type.message, node);
      if ("enum" in type) {
        if (node.kind === "string") {
          const n = type.enum[node.value];
          return n === undefined ? invalid("enum") : BigInt(n);
        }
        const n = node.kind === "number" ? integral(node.raw) : undefined;
        return n !== undefined && n >= RANGES.int32[0] && n <= RANGES.int32[1] ? n : invalid("enum");
      }
      if ("map" in type) {
        if (node.kind !== "object") return this.unexpected(node);
        const out: Record<string, unknown> = {};
        const entry = { name: "value", json: "value", type: type.map };
        for (const e of node.entries) {
          if (Object.hasOwn(out, e.key)) return this.fail(e.keyPos, `duplicate map key ${JSON.stringify(e.key)}`);
          out[e.key] = this.value(entry, type.map, e.value);
        }
        return out;
      }
      if (node.kind !== "array") return this.unexpected(node);
      return node.items.map((item) => this.value(f, type.list, item));
    }
    switch (type) {
      case "string":
        return node.kind === "string" ? node.value : invalid("string");
      case "bool":
      case "bool-value":
        return node.kind === "true" ? true : node.kind === "false" ? false : invalid("bool");
      case "int64":
      case "int32":
      case "uint32": {
        const n =
          node.kind === "number" ? integral(node.raw) : node.kind === "string" ? integral(node.value) : undefined;
        const [min, max] = RANGES[type];
        if (n === undefined || n < min || n > max) return invalid(type);
        return type === "uint32" ? new UnsignedInt(n) : n;
      }
      case "bytes": {
        const b = node.kind === "string" ? bytes(node.value) : undefined;
        return b ?? invalid("bytes");
      }
      case "timestamp": {
        if (node.kind !== "string") return this.unexpected(node);
        const t = timestamp(node.value);
        if (t === "range") return this.fail(node.pos, `google.protobuf.Timestamp value out of range: ${node.raw}`);
        return t ?? this.fail(node.pos, `invalid google.protobuf.Timestamp value ${node.raw}`);
      }
      case "struct":
        return node.kind === "object" ? plainJson(node) : this.unexpected(node);
      case "any":
        return this.fail(
          node.pos,
          `Bylaw does not read google.protobuf.Any values (field ${f.json}): it does not know the types they name`,
        );
    }
  }
}
