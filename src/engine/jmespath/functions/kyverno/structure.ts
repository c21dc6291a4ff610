/** Parsing and structure functions: parse_json, parse_yaml, lookup, items, object_from_lists, label_match. */
import { isObject, type JsonObject, type JsonValue } from "../../../api/json.js";
import type { FunctionContext, FunctionDef } from "../../types.js";
import type { MemoAnswer } from "../../function-memo.js";
import { jsonArg, stringArg } from "./args.js";
import { charge } from "./budget.js";
import { argumentTypeError, goError } from "./errors.js";
import { setOwn } from "../../../api/set-own.js";
import { GoJsonDecodeError, goJsonUnmarshal } from "../../../go/json-decode.js";
import { goFormatFloat as formatFloatV } from "../../../go/format-value.js";
import { compareCodePoints as compareStrings } from "../../../go/strings.js";
import { goInterfaceEqual } from "../../../go/interface-equal.js";
import { ifaceToString } from "./go-text.js";
import { parseGoYaml } from "./go-yaml.js";

/**
 * The value of a function of its text alone: the request's kept answer when the evaluation has a memo
 * (function-memo.ts), else computed here; an error answer is thrown as the function's own error.
 */
function answered(
  ctx: FunctionContext,
  name: string,
  text: string,
  compute: (text: string, units: (n: number) => void) => MemoAnswer,
): JsonValue {
  const units = (n: number): void => charge(ctx, n);
  const r = ctx.memo !== undefined ? ctx.memo.answer(name, text, units, (u) => compute(text, u)) : compute(text, units);
  if (!r.ok) throw goError(r.error);
  return r.value;
}

/** Kyverno's `intNumber`: a float that is exactly an int, or the reason it is not. */
function intIndex(n: number): number | string {
  if (!Number.isFinite(n) || Math.trunc(n) !== n) return `expected an integer number but got: ${formatFloatV(n)}`;
  if (Math.abs(n) >= 2 ** 63) return `number is outside the range of integer numbers: ${formatFloatV(n)}`;
  return n;
}

/** Go's `==` on two interface values; comparing two maps or two slices panics, raised as an error. */
function labelValueEqual(a: JsonValue, b: JsonValue): boolean {
  const r = goInterfaceEqual(a, b);
  if (typeof r === "boolean") return r;
  throw goError(r.panic);
}

export const structureFunctions: readonly FunctionDef[] = [
  {
    name: "parse_json",
    args: [{ types: ["string"] }],
    returns: "any",
    description: "decodes a valid JSON encoded string to the appropriate type. Opposite of `to_string` function",
    call: (args, ctx) =>
      answered(ctx, "parse_json", stringArg("parse_json", args, 0), (text, units) => {
        units(text.length);
        try {
          return { ok: true, value: goJsonUnmarshal(text) };
        } catch (e) {
          if (e instanceof GoJsonDecodeError) return { ok: false, error: e.message };
          throw e;
        }
      }),
  },
  {
    name: "parse_yaml",
    args: [{ types: ["string"] }],
    returns: "any",
    description: "decodes a valid YAML encoded string to the appropriate type provided it can be represented as JSON",
    call: (args, ctx) =>
      answered(ctx, "parse_yaml", stringArg("parse_yaml", args, 0), (text, units) => parseGoYaml(text, units)),
  },
  {
    name: "lookup",
    args: [{ types: ["object", "array"] }, { types: ["string", "number"] }],
    returns: "any",
    description: "returns the value corresponding to the given key/index in the given object/array",
    call: (args) => {
      const input = jsonArg("lookup", args, 0);
      const key = jsonArg("lookup", args, 1);
      if (isObject(input)) {
        if (typeof key !== "string") throw argumentTypeError("lookup", 2, "String");
        return Object.prototype.hasOwnProperty.call(input, key) ? (input[key] ?? null) : null;
      }
      if (Array.isArray(input)) {
        if (typeof key !== "number") throw argumentTypeError("lookup", 2, "Number");
        const index = intIndex(key);
        if (typeof index === "string") throw goError(`JMESPath function 'lookup': argument #2: ${index}`);
        return index < 0 || index >= input.length ? null : (input[index] ?? null);
      }
      throw argumentTypeError("lookup", 1, "Object or Array");
    },
  },
  {
    name: "items",
    args: [{ types: ["object", "array"] }, { types: ["string"] }, { types: ["string"] }],
    returns: "array",
    description: "converts a map or array to an array of objects where each key:value is an item in the array",
    call: (args, ctx) => {
      const input = jsonArg("items", args, 0);
      const keyName = stringArg("items", args, 1);
      const valName = stringArg("items", args, 2);
      const entry = (k: JsonValue, v: JsonValue): JsonObject => {
        const o: JsonObject = {};
        setOwn(o, keyName, k);
        setOwn(o, valName, v);
        return o;
      };
      charge(ctx, Array.isArray(input) ? input.length : isObject(input) ? Object.keys(input).length : 0);
      if (isObject(input)) {
        return Object.keys(input)
          .sort(compareStrings)
          .map((k) => entry(k, input[k] ?? null));
      }
      if (Array.isArray(input)) return input.map((v, i) => entry(i, v));
      throw argumentTypeError("items", 1, "Object or Array");
    },
  },
  {
    name: "object_from_lists",
    args: [{ types: ["array"] }, { types: ["array"] }],
    returns: "object",
    description: "converts a pair of lists containing keys and values to an object",
    call: (args) => {
      const keys = jsonArg("object_from_lists", args, 0);
      const values = jsonArg("object_from_lists", args, 1);
      if (!Array.isArray(keys)) throw argumentTypeError("object_from_lists", 1, "Array");
      if (!Array.isArray(values)) throw argumentTypeError("object_from_lists", 2, "Array");
      const out: JsonObject = {};
      keys.forEach((k, i) => {
        const key = ifaceToString(k);
        if (key === undefined) throw argumentTypeError("object_from_lists", 1, "StringArray");
        setOwn(out, key, i < values.length ? (values[i] ?? null) : null);
      });
      return out;
    },
  },
  {
    name: "label_match",
    args: [{ types: ["object"] }, { types: ["object"] }],
    returns: "boolean",
    description:
      "checks that every key and value of the first object (a label selector) is present in the second (labels)",
    call: (args) => {
      const selector = jsonArg("label_match", args, 0);
      const labels = jsonArg("label_match", args, 1);
      if (!isObject(selector)) throw argumentTypeError("label_match", 0, "Object");
      if (!isObject(labels)) throw argumentTypeError("label_match", 1, "Object");
      for (const [key, value] of Object.entries(selector)) {
        if (!Object.prototype.hasOwnProperty.call(labels, key)) return false;
        if (!labelValueEqual(labels[key] ?? null, value)) return false;
      }
      return true;
    },
  },
];
