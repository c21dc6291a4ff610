/**
 * Protocol buffer (proto3) messages as cel-go sees them, for kyverno-authz's Envoy library: a
 * schema per message (its fields' proto names, JSON names and types), a class per message so cel-js
 * knows the value's type, and every field always holding a value: one the payload did not set
 * reads as its default (empty string, 0, empty map or list, a default message), as cel-go reads an
 * unset proto3 field. The instance remembers which message and oneof fields were set.
 */
import { UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { FIELD_PRESENCE } from "../has-macro.js";

export type ProtoType =
  | "string"
  | "bool"
  | "int64"
  | "int32"
  | "uint32"
  | "bytes"
  /** google.protobuf.Timestamp: a CEL timestamp. */
  | "timestamp"
  /** google.protobuf.Struct: a CEL map<string, dyn> (JSON values). */
  | "struct"
  /** google.protobuf.Any: not read from payloads by Bylaw. */
  | "any"
  /** google.protobuf.BoolValue: null when unset. */
  | "bool-value"
  | { readonly enum: Readonly<Record<string, number>> }
  | { readonly message: string }
  /** A map with string keys. */
  | { readonly map: ProtoType }
  | { readonly list: ProtoType };

export interface ProtoField {
  /** The proto name, which CEL selects. */
  readonly name: string;
  /** The JSON name (lowerCamelCase), which protojson also reads. */
  readonly json: string;
  readonly type: ProtoType;
  /** The oneof the field belongs to, if any. */
  readonly oneof?: string;
}

export interface ProtoSchema {
  /** The message's full name, e.g. envoy.service.auth.v3.CheckRequest. */
  readonly name: string;
  readonly fields: readonly ProtoField[];
}

/** A field of a schema, its JSON name the lowerCamelCase of its proto name (as protoc derives it). */
export function field(name: string, type: ProtoType, oneof?: string): ProtoField {
  const json = name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return oneof === undefined ? { name, json, type } : { name, json, type, oneof };
}

const SET = Symbol("set fields");

/** The base of every message class: fields are own properties; SET names the message and oneof fields set. */
export abstract class ProtoMessage {
  [SET]: Set<string> = new Set();
  [key: string]: unknown;

  /** cel-go's `has()`: a message or oneof field when set, another when not its default (empty map or list included). */
  [FIELD_PRESENCE](field: string): boolean {
    if (this[SET].has(field)) return true;
    const v = this[field];
    if (v instanceof ProtoMessage || v instanceof Date) return false;
    return !isDefault(v) && !(isPlainObject(v) && Object.keys(v).length === 0);
  }
}

function isPlainObject(v: unknown): v is object {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

/** The message and oneof fields set on a message (proto3 presence; a scalar's is being non-default). */
export function setFields(m: ProtoMessage): ReadonlySet<string> {
  return m[SET];
}

/** The messages of one library: their classes, defaults and CEL types. */
export class ProtoRegistry {
  readonly #schemas = new Map<string, ProtoSchema>();
  readonly #classes = new Map<string, new () => ProtoMessage>();

  constructor(schemas: readonly ProtoSchema[]) {
    for (const s of schemas) {
      this.#schemas.set(s.name, s);
      const ctor = class extends ProtoMessage {};
      Object.defineProperty(ctor, "name", { value: s.name });
      this.#classes.set(s.name, ctor);
    }
  }

  schema(name: string): ProtoSchema {
    const s = this.#schemas.get(name);
    if (s === undefined) throw new Error(`unknown message ${name}`);
    return s;
  }

  classOf(name: string): new () => ProtoMessage {
    const c = this.#classes.get(name);
    if (c === undefined) throw new Error(`unknown message ${name}`);
    return c;
  }

  /** A message with the given fields and every other field at its default. */
  create(name: string, values: Readonly<Record<string, unknown>> = {}): ProtoMessage {
    const m = new (this.classOf(name))();
    for (const f of this.schema(name).fields) {
      const v = values[f.name];
      if (v === undefined) m[f.name] = this.defaultOf(f.type);
      else {
        m[f.name] = v;
        if (f.oneof !== undefined || hasPresence(f.type)) m[SET].add(f.name);
      }
    }
    return m;
  }

  /** A copy of a message with some fields replaced (the library's builders never change a value in place). */
  with(m: ProtoMessage, values: Readonly<Record<string, unknown>>): ProtoMessage {
    const name = (m.constructor as { name: string }).name;
    const kept: Record<string, unknown> = {};
    for (const f of this.schema(name).fields) {
      const presence = f.oneof !== undefined || hasPresence(f.type);
      if (presence ? m[SET].has(f.name) : !isDefault(m[f.name])) kept[f.name] = m[f.name];
    }
    return this.create(name, { ...kept, ...values });
  }

  defaultOf(type: ProtoType): unknown {
    switch (type) {
      case "string":
        return "";
      case "bool":
        return false;
      case "int64":
      case "int32":
        return 0n;
      case "uint32":
        return new UnsignedInt(0);
      case "bytes":
        return new Uint8Array();
      case "timestamp":
        return new Date(0);
      case "struct":
        return {};
      case "any":
      case "bool-value":
        return null;
    }
    if ("enum" in type) return 0n;
    if ("message" in type) return this.create(type.message);
    if ("map" in type) return {};
    return [];
  }

  /** The CEL type of a field's value (cel-go's view of the proto type). */
  celType(type: ProtoType): string {
    switch (type) {
      case "string":
      case "bool":
      case "bytes":
        return type;
      case "int64":
      case "int32":
        return "int";
      case "uint32":
        return "uint";
      case "timestamp":
        return "google.protobuf.Timestamp";
      case "struct":
        return "map<string, dyn>";
      case "any":
      case "bool-value":
        return "dyn";
    }
    if ("enum" in type) return "int";
    if ("message" in type) return type.message;
    if ("map" in type) return `map<string, ${this.celType(type.map)}>`;
    return `list<${this.celType(type.list)}>`;
  }

  /** Each message as a cel-js type: its class and its fields' CEL types. */
  celTypes(): { name: string; ctor: new () => ProtoMessage; fields: Record<string, string> }[] {
    return [...this.#schemas.values()].map((s) => ({
      name: s.name,
      ctor: this.classOf(s.name),
      fields: Object.fromEntries(s.fields.map((f) => [f.name, this.celType(f.type)])),
    }));
  }
}

/** A message-typed field (Timestamp, Struct, Any and wrappers are messages too): set or not, whatever its value. */
function hasPresence(type: ProtoType): boolean {
  if (typeof type === "object") return "message" in type;
  return type === "timestamp" || type === "struct" || type === "any" || type === "bool-value";
}

function isDefault(v: unknown): boolean {
  if (v === "" || v === false || v === 0n || v === null) return true;
  if (v instanceof UnsignedInt) return v.value === 0n;
  if (Array.isArray(v)) return v.length === 0;
  if (v instanceof Uint8Array) return v.length === 0;
  return false;
}
