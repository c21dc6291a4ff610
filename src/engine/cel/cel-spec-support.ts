/** Reading cel-spec's protobuf-JSON test values into cel-js values (test support for the conformance test). */
import { UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { defaultLibraries } from "./libraries/index.js";
import type { CelLibrary } from "./library.js";

export type ProtoValue = Readonly<Record<string, unknown>>;

let libs: CelLibrary[] | undefined;
export function cachedLibraries(): CelLibrary[] {
  libs ??= defaultLibraries();
  return libs;
}

function bytes(b64: string): Uint8Array {
  const bin = atob(b64);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function double(v: unknown): number {
  if (v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  return Number(v);
}

export function fromProtoValue(v: ProtoValue): unknown {
  if ("int64Value" in v) return BigInt(String(v["int64Value"]));
  if ("uint64Value" in v) return new UnsignedInt(BigInt(String(v["uint64Value"])));
  if ("doubleValue" in v) return double(v["doubleValue"]);
  if ("stringValue" in v) return String(v["stringValue"]);
  if ("boolValue" in v) return v["boolValue"] === true;
  if ("nullValue" in v) return null;
  if ("bytesValue" in v) return bytes(String(v["bytesValue"]));
  if ("typeValue" in v) return { typeName: String(v["typeValue"]) };
  if ("listValue" in v) {
    const values = (v["listValue"] as { values?: ProtoValue[] }).values ?? [];
    return values.map(fromProtoValue);
  }
  if ("mapValue" in v) {
    const entries = (v["mapValue"] as { entries?: { key: ProtoValue; value: ProtoValue }[] }).entries ?? [];
    const out: Record<string, unknown> = {};
    for (const e of entries) out[String(fromProtoValue(e.key))] = fromProtoValue(e.value);
    return out;
  }
  return undefined;
}

const PRIMITIVES: Readonly<Record<string, string>> = { INT64: "int", UINT64: "uint", DOUBLE: "double", STRING: "string", BOOL: "bool", BYTES: "bytes" };

export function protoType(t: Record<string, unknown> | undefined): string {
  if (t === undefined) return "dyn";
  if (typeof t["primitive"] === "string") return PRIMITIVES[t["primitive"]] ?? "dyn";
  if (t["listType"] !== undefined) return `list<${protoType((t["listType"] as { elemType?: Record<string, unknown> }).elemType)}>`;
  if (t["mapType"] !== undefined) {
    const m = t["mapType"] as { keyType?: Record<string, unknown>; valueType?: Record<string, unknown> };
    return `map<${protoType(m.keyType)}, ${protoType(m.valueType)}>`;
  }
  if (t["messageType"] === "google.protobuf.Duration") return "google.protobuf.Duration";
  if (t["messageType"] === "google.protobuf.Timestamp") return "google.protobuf.Timestamp";
  return "dyn";
}
