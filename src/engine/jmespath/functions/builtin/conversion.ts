/** Type and conversion built-ins: type, to_number, to_string, to_array, not_null. */
import type { JsonValue } from "../../../api/json.js";
import { limitError } from "../../errors.js";
import { GoJsonEncodeError, goJsonMarshal } from "../../../go/json-encode.js";
import { goParseFloat } from "../../../go/parse-float.js";
import type { FunctionDef } from "../../types.js";
import { fnError, isExpressionRef } from "./support.js";

export const conversionFunctions: readonly FunctionDef[] = [
  {
    name: "type",
    args: [{ name: "value", types: ["any"] }],
    returns: "string",
    description: 'The JMESPath type of a value: "number", "string", "boolean", "array", "object" or "null".',
    call: ([v]) => {
      if (v === null) return "null";
      if (Array.isArray(v)) return "array";
      if (isExpressionRef(v)) throw fnError("unknown type");
      switch (typeof v) {
        case "number":
          return "number";
        case "string":
          return "string";
        case "boolean":
          return "boolean";
        default:
          return "object";
      }
    },
  },
  {
    name: "to_number",
    args: [{ name: "value", types: ["any"] }],
    returns: "number",
    description: "A number unchanged, a string parsed as Go's ParseFloat does, anything else null.",
    call: ([v]) => {
      if (typeof v === "number") return v;
      if (typeof v === "string") return goParseFloat(v) ?? null;
      if (isExpressionRef(v)) throw fnError("unknown type");
      return null;
    },
  },
  {
    name: "to_string",
    args: [{ name: "value", types: ["any"] }],
    returns: "string",
    description: "A string unchanged, anything else encoded as JSON the way Go does (sorted keys, HTML escaped).",
    call: ([v], ctx) => {
      if (typeof v === "string") return v;
      try {
        return goJsonMarshal(v, ctx.budget?.maxStringLength);
      } catch (e) {
        if (!(e instanceof GoJsonEncodeError)) throw e;
        throw e.reason === "too-long" ? limitError(`to_string: ${e.message}`) : fnError(e.message);
      }
    },
  },
  {
    name: "to_array",
    args: [{ name: "value", types: ["any"] }],
    returns: "array",
    description: "An array unchanged, anything else wrapped in a one-element array.",
    call: ([v]) => (Array.isArray(v) ? v : [v as JsonValue]),
  },
  {
    name: "not_null",
    args: [{ name: "values", types: ["any"], variadic: true }],
    returns: "any",
    description: "The first argument that is not null, or null.",
    call: (args) => {
      for (const a of args) if (a !== null) return a as JsonValue;
      return null;
    },
  },
];
