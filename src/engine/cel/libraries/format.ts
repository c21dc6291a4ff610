/** cel-go's `string.format(list)` (ext.Strings): %s %d %f %e %b %o %x %X %% with an optional precision. */
import { UnsignedInt } from "@marcbachmann/cel-js/evaluator";
import { CelFunctionError } from "../library.js";
import { utf8DecodeLossy, utf8Encode } from "../../jmespath/functions/kyverno/go-text.js";

/** cel-go's %s text of a value: strings bare, lists `[a, b]`, maps `{k: v}` sorted by key. */
function celToString(v: unknown, nested = false): string {
  if (typeof v === "string") return nested ? JSON.stringify(v) : v;
  if (typeof v === "bigint" || typeof v === "boolean") return String(v);
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : String(v);
  if (v === null || v === undefined) return "null";
  if (v instanceof UnsignedInt) return v.value.toString();
  if (Array.isArray(v)) return `[${v.map((x) => celToString(x, true)).join(", ")}]`;
  if (v instanceof Date) return v.toISOString().replace(".000Z", "Z");
  if (v instanceof Uint8Array) return utf8DecodeLossy(v);
  if (v instanceof Map) return mapText([...v.entries()]);
  if (typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) return mapText(Object.entries(v));
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- the last resort: a CEL type value prints itself
  return String(v);
}

function mapText(entries: [unknown, unknown][]): string {
  const parts = entries.map(([k, x]) => `${celToString(k, true)}: ${celToString(x, true)}`).sort();
  return `{${parts.join(", ")}}`;
}

function integer(v: unknown, verb: string): bigint {
  if (typeof v === "bigint") return v;
  if (v instanceof UnsignedInt) return v.value;
  throw new CelFunctionError(
    `error during formatting: integer clause can only be used on integers, was given ${typeName(v)}`,
  );
  void verb;
}

function float(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (v instanceof UnsignedInt) return Number(v.value);
  throw new CelFunctionError(
    `error during formatting: fixed-point clause can only be used on doubles, was given ${typeName(v)}`,
  );
}

function typeName(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "list";
  if (v === null) return "null_type";
  return typeof v === "object" ? "map" : typeof v;
}

function special(n: number): string | undefined {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "Infinity";
  if (n === -Infinity) return "-Infinity";
  return undefined;
}

export function formatString(format: string, args: unknown[]): string {
  let out = "";
  let next = 0;
  for (let i = 0; i < format.length; i++) {
    const ch = format[i];
    if (ch !== "%") {
      out += ch;
      continue;
    }
    let j = i + 1;
    let precision: number | undefined;
    const p = /^\.(\d+)/.exec(format.slice(j));
    if (p) {
      precision = Number(p[1]);
      j += p[0].length;
    }
    const verb = format[j];
    i = j;
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (next >= args.length) throw new CelFunctionError(`index ${next} out of range`);
    const arg = args[next++];
    switch (verb) {
      case "s":
        out += celToString(arg);
        break;
      case "d":
        out += integer(arg, verb).toString();
        break;
      case "f": {
        const n = float(arg);
        out += special(n) ?? n.toFixed(precision ?? 6);
        break;
      }
      case "e": {
        const n = float(arg);
        out += special(n) ?? n.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, "e$10$2");
        break;
      }
      case "b":
        out += typeof arg === "boolean" ? String(arg) : integer(arg, verb).toString(2);
        break;
      case "o":
        out += integer(arg, verb).toString(8);
        break;
      case "x":
      case "X": {
        let text: string;
        if (typeof arg === "string") text = [...utf8Encode(arg)].map((b) => b.toString(16).padStart(2, "0")).join("");
        else if (arg instanceof Uint8Array) text = [...arg].map((b) => b.toString(16).padStart(2, "0")).join("");
        else text = integer(arg, verb).toString(16);
        out += verb === "X" ? text.toUpperCase() : text;
        break;
      }
      default:
        throw new CelFunctionError(`could not parse formatting clause: unrecognized formatting clause "${verb ?? ""}"`);
    }
  }
  return out;
}
