/** Plain JSON values: everything the engine reads and writes is one of these. */
export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Whether an object is decoded data (a plain or null-prototype object or an array's element map),
 * not a class instance such as a JMESPath `&expr` value, which Go's printers and comparisons treat
 * as an opaque struct.
 */
export function isPlainData(o: object): boolean {
  const proto: unknown = Object.getPrototypeOf(o);
  return proto === Object.prototype || proto === null;
}

/**
 * A decoded (JSON or YAML) value as text where a string is expected: strings as they are, other
 * primitives as `String` prints them ("5", "true", "null", "undefined"), maps and lists as JSON
 * rather than "[object Object]" or a comma list.
 */
export function textOf(v: unknown): string {
  return typeof v === "object" && v !== null ? JSON.stringify(v) : String(v);
}
