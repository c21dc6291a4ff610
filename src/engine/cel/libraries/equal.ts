/** CEL equality on cel-js values: numbers compare across int, uint and double; lists and maps deeply. */
import { UnsignedInt } from "@marcbachmann/cel-js/evaluator";

function numeric(v: unknown): number | bigint | undefined {
  if (typeof v === "number" || typeof v === "bigint") return v;
  if (v instanceof UnsignedInt) return v.value;
  return undefined;
}

export function celEqual(a: unknown, b: unknown): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && na == nb;
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => celEqual(x, b[i]));
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  const ea = entries(a);
  const eb = entries(b);
  if (ea === undefined || eb === undefined || ea.size !== eb.size) return false;
  for (const [k, v] of ea) if (!eb.has(k) || !celEqual(v, eb.get(k))) return false;
  return true;
}

function entries(o: object): Map<unknown, unknown> | undefined {
  if (o instanceof Map) return o as Map<unknown, unknown>;
  const proto: unknown = Object.getPrototypeOf(o);
  if (proto !== Object.prototype && proto !== null) return undefined;
  return new Map(Object.entries(o));
}

/** Orders two values of one comparable kind (numbers, strings, bools); undefined when unordered. */
export function celCompare(a: unknown, b: unknown): number | undefined {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) return na < nb ? -1 : na > nb ? 1 : 0;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return undefined;
}
