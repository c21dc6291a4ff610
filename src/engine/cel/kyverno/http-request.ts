/**
 * An HTTP payload (`kyverno apply --http-payload FILE`, a test's `httpPayloads`) read into the
 * `http.CheckRequest` an HTTP-mode ValidatingPolicy sees, as Kyverno's CLI reads it: Go's
 * encoding/json into kyverno-authz's CheckRequest. So keys match fields case-insensitively (an
 * exact match first), unknown keys and `null`s are ignored, absent fields are empty, `body` is
 * base64, `contentLength` an integer, `header` and `query` map a name to a list of strings; the
 * first value of the wrong type is refused in Go's words. `mcp` is not read (Bylaw does not
 * evaluate MCP requests: a policy reading `object.mcp` does not compile).
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { CheckRequest, CheckRequestAttributes, type HttpRequestFields } from "./http-authz.js";

type Decoded<T> = { ok: true; value: T } | { ok: false; error: string };

class Refused extends Error {}

/** Go's name of a JSON value's kind in an UnmarshalTypeError. */
function jsonKind(v: JsonValue): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return `number`;
  if (typeof v === "boolean") return "bool";
  return typeof v === "object" ? "object" : "string";
}

function refuse(v: JsonValue, struct: string, field: string, type: string): never {
  throw new Refused(`json: cannot unmarshal ${jsonKind(v)} into Go struct field ${struct}.${field} of type ${type}`);
}

/** The value of each field, keys matched as Go matches them (exactly, else ignoring case), in document order. */
function fields(o: JsonObject, names: readonly string[]): [string, JsonValue][] {
  const out: [string, JsonValue][] = [];
  for (const [key, value] of Object.entries(o)) {
    const name = names.includes(key) ? key : names.find((n) => n.toLowerCase() === key.toLowerCase());
    if (name !== undefined && value !== undefined) out.push([name, value]);
  }
  return out;
}

const ATTRIBUTE_FIELDS = [
  "method",
  "header",
  "host",
  "protocol",
  "contentLength",
  "body",
  "scheme",
  "path",
  "query",
  "fragment",
] as const;
type AttributeField = (typeof ATTRIBUTE_FIELDS)[number];

export function decodeCheckRequest(doc: JsonValue): Decoded<CheckRequest> {
  try {
    if (doc !== null && (typeof doc !== "object" || Array.isArray(doc)))
      throw new Refused(`json: cannot unmarshal ${jsonKind(doc)} into Go value of type http.CheckRequest`);
    let attributes: JsonObject = {};
    for (const [, v] of fields(doc ?? {}, ["attributes"])) {
      if (v === null) continue;
      if (typeof v !== "object" || Array.isArray(v))
        refuse(v, "CheckRequest", "attributes", "http.CheckRequestAttributes");
      attributes = { ...attributes, ...v };
    }
    return { ok: true, value: new CheckRequest(decodeAttributes(attributes)) };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, error: e.message };
    throw e;
  }
}

function decodeAttributes(o: JsonObject): CheckRequestAttributes {
  const a: Record<AttributeField, unknown> = {
    method: "",
    header: {},
    host: "",
    protocol: "",
    contentLength: 0n,
    body: new Uint8Array(),
    scheme: "",
    path: "",
    query: {},
    fragment: "",
  };
  const at = (f: string): string => `attributes.${f}`;
  for (const [name, v] of fields(o, ATTRIBUTE_FIELDS)) {
    const f = name as AttributeField;
    if (v === null) continue;
    if (f === "contentLength") {
      if (typeof v !== "number") refuse(v, "CheckRequestAttributes", at(f), "int64");
      if (!Number.isInteger(v))
        throw new Refused(
          `json: cannot unmarshal number ${v} into Go struct field CheckRequestAttributes.${at(f)} of type int64`,
        );
      a.contentLength = BigInt(v);
    } else if (f === "body") {
      if (typeof v !== "string") refuse(v, "CheckRequestAttributes", at(f), "[]uint8");
      a.body = base64Bytes(v);
    } else if (f === "header" || f === "query") {
      a[f] = decodeValues(v, at(f));
    } else {
      if (typeof v !== "string") refuse(v, "CheckRequestAttributes", at(f), "string");
      a[f] = v;
    }
  }
  return new CheckRequestAttributes(a as unknown as HttpRequestFields);
}

/** `map[string][]string`: each name to its values (a `null` list is empty, a `null` value ""). */
function decodeValues(v: JsonValue, field: string): Record<string, string[]> {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    refuse(v, "CheckRequestAttributes", field, "map[string][]string");
  const out: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(v)) {
    if (list === undefined) continue;
    if (list === null) {
      out[name] = [];
      continue;
    }
    if (!Array.isArray(list)) refuse(list, "CheckRequestAttributes", field, "[]string");
    out[name] = list.map((item) => {
      if (item === null) return "";
      if (typeof item !== "string") refuse(item, "CheckRequestAttributes", field, "string");
      return item;
    });
  }
  return out;
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Go's base64.StdEncoding (padded; line breaks ignored): the bytes; throws Go's error at the first bad byte. */
export function base64Bytes(text: string): Uint8Array {
  const s = text.replace(/[\r\n]/g, "");
  const bytes: number[] = [];
  let bits = 0;
  let count = 0;
  let i = 0;
  for (; i < s.length; i++) {
    const c = s[i] ?? "";
    if (c === "=") break;
    const d = ALPHABET.indexOf(c);
    if (d < 0) throw new Refused(`illegal base64 data at input byte ${i}`);
    bits = (bits << 6) | d;
    count += 6;
    if (count >= 8) {
      count -= 8;
      bytes.push((bits >> count) & 0xff);
    }
  }
  const quantum = i % 4;
  const padding = s.length - i;
  if (quantum === 1 || (quantum === 0 && padding > 0) || (quantum > 0 && padding !== 4 - quantum))
    // Go names the first byte of an unfinished quantum, or the padding that does not fit.
    throw new Refused(`illegal base64 data at input byte ${padding === 0 ? i - quantum : i}`);
  if (!/^=*$/.test(s.slice(i))) throw new Refused(`illegal base64 data at input byte ${i}`);
  return new Uint8Array(bytes);
}
