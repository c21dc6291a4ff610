/**
 * Go's `==` between two `interface{}` values holding decoded JSON (go-jmespath's `contains`,
 * Kyverno's `label_match`): values of different dynamic types are unequal, scalars compare by
 * value, and two slices or two maps cannot be compared: Go panics. The panic's text is returned
 * for the caller to raise as its own error.
 */
import { isPlainData } from "../api/json.js";

type GoPanic = { readonly panic: string };

const SLICES: GoPanic = { panic: "runtime error: comparing uncomparable type []interface {}" };
const MAPS: GoPanic = { panic: "runtime error: comparing uncomparable type map[string]interface {}" };

/** `a == b` in Go, or the panic it raises. An object that is not decoded JSON (a JMESPath `&expr`) equals only itself. */
export function goInterfaceEqual(a: unknown, b: unknown): boolean | GoPanic {
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return a === b;
  const aList = Array.isArray(a);
  if (aList !== Array.isArray(b)) return false;
  if (aList) return SLICES;
  if (!isPlainData(a) || !isPlainData(b)) return a === b;
  return MAPS;
}
