/**
 * Standard CEL functions cel-js 8.0.0 lacks: `int(uint)`, `int(timestamp)`, `string(timestamp)`,
 * `string(duration)` and `optional.ofNonZeroValue` (cel-go's OptionalTypes).
 */
import { Optional } from "@marcbachmann/cel-js";
import { Duration, UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { CelFunctionError, type CelLibrary } from "../library.js";

const INT64_MAX = (1n << 63n) - 1n;

function isZero(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === "" || v === 0 || v === 0n) return true;
  if (v instanceof UnsignedInt) return v.value === 0n;
  if (v instanceof Duration) return v.seconds === 0n && v.nanos === 0;
  if (v instanceof Date) return v.getTime() === 0;
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length === 0;
  if (v instanceof Map) return v.size === 0;
  if (v instanceof Optional) return !v.hasValue();
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) return Object.keys(v).length === 0;
  return false;
}

export function standardExtras(): CelLibrary {
  return {
    name: "CEL standard (cel-js gaps)",
    functions: [
      {
        signature: "int(uint): int",
        handler: (u: UnsignedInt) => {
          if (u.value > INT64_MAX) throw new CelFunctionError("integer overflow");
          return u.value;
        },
      },
      {
        signature: "int(google.protobuf.Timestamp): int",
        handler: (t: Date) => BigInt(Math.floor(t.getTime() / 1000)),
      },
      {
        signature: "string(google.protobuf.Timestamp): string",
        handler: (t: Date) => t.toISOString().replace(".000Z", "Z"),
      },
      { signature: "string(google.protobuf.Duration): string", handler: (d: Duration) => d.toString() },
      {
        signature: "OptionalNamespace.ofNonZeroValue(A): optional<A>",
        handler: (_: unknown, v: unknown) => (isZero(v) ? Optional.none() : Optional.of(v)),
      },
    ],
  };
}
