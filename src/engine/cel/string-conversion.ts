/**
 * cel-go's error when a value is converted to a Go string (`ConvertToNative`, as Kyverno's
 * `utils.ConvertToNative[string]` asks of an audit annotation's value), worded per CEL type as
 * cel-go v0.30 words it; undefined for a string (it converts).
 */
export function stringConversionError(value: unknown): string | undefined {
  if (typeof value === "string") return undefined;
  if (value === null || value === undefined) return "type conversion error from 'null_type' to 'string'";
  if (typeof value === "boolean") return "type conversion error from bool to 'string'";
  if (typeof value === "bigint") return "unsupported type conversion from 'int' to string";
  if (typeof value === "number") return "type conversion error from Double to 'string'";
  if (value instanceof Uint8Array) return "type conversion error from Bytes to 'string'";
  if (Array.isArray(value)) return "type conversion error from list to 'string'";
  if (typeof value === "object" && value.constructor?.name === "UnsignedInt")
    return "unsupported type conversion from 'uint' to string";
  return "type conversion error from map to 'string'";
}
