/**
 * An object converted to a typed object as structured-merge-diff converts it (Kyverno's and
 * Kubernetes' ApplyConfiguration patcher, through the kind's type): the errors it reports, worded
 * and pathed as it words them (".spec.securityContext.allowPrivilegeEscalation: field not declared
 * in schema", ".spec.containers[name=\"c\"].ports[containerPort=80,protocol=\"TCP\"].x: …"). A map
 * stops at its first undeclared key, as structured-merge-diff stops walking it (it walks a Go map,
 * in no fixed order; Bylaw walks the object's own key order).
 */
import { isObject, type JsonValue } from "../../api/json.js";
import type { ListType, MapType, TypedKinds, TypeNode } from "./typed-schema.js";

interface ValidationError {
  readonly path: string;
  readonly message: string;
}

/** The value's errors against `type` (none: it converts). `allowDuplicates`: keyed list entries may repeat (the object a patch merges into). */
export function typedErrors(
  value: JsonValue,
  type: TypeNode,
  at: { readonly kinds: TypedKinds; readonly allowDuplicates: boolean },
): ValidationError[] {
  const t = at.kinds.resolve(type);
  if (t === "x" || value === null) return [];
  if (typeof t === "string") return scalarErrors(t, value);
  if ("m" in t) {
    if (!isObject(value)) return [{ path: "", message: `expected map, got ${goPointer(value)}` }];
    return mapErrors(t, value, at);
  }
  if (!Array.isArray(value)) return [{ path: "", message: `expected list, got ${goPointer(value)}` }];
  return listErrors(t, value, at);
}

/** structured-merge-diff's text for the errors: one as `path: message`, several under "errors:". */
export function formatTypedErrors(errors: readonly ValidationError[]): string {
  const one = (e: ValidationError) => (e.path === "" ? e.message : `${e.path}: ${e.message}`);
  if (errors.length === 1) return one(errors[0] as ValidationError);
  return ["errors:", ...errors.map((e) => `  ${one(e)}`)].join("\n");
}

function prefixed(prefix: string, errors: readonly ValidationError[]): ValidationError[] {
  return errors.map((e) => ({ path: prefix + e.path, message: e.message }));
}

function mapErrors(
  t: MapType,
  value: Readonly<Record<string, JsonValue>>,
  at: Parameters<typeof typedErrors>[2],
): ValidationError[] {
  const out: ValidationError[] = [];
  for (const [key, child] of Object.entries(value)) {
    const type = Object.hasOwn(t.m, key) ? t.m[key] : t.e;
    if (type === undefined) {
      out.push({ path: `.${key}`, message: "field not declared in schema" });
      break;
    }
    out.push(...prefixed(`.${key}`, typedErrors(child, type, at)));
  }
  return out;
}

function listErrors(
  t: ListType,
  value: readonly JsonValue[],
  at: Parameters<typeof typedErrors>[2],
): ValidationError[] {
  const out: ValidationError[] = [];
  const seen = new Set<string>();
  for (const [i, child] of value.entries()) {
    let element: string;
    if (t.r === "a") element = `[${i}]`;
    else {
      const pe = t.r === "m" && (t.k?.length ?? 0) > 0 ? keyedElement(t, child) : setElement(child);
      if (pe.error !== undefined) {
        out.push({ path: "", message: `element ${i}: ${pe.error}` });
        return out;
      }
      element = pe.element;
      if (seen.has(element) && !at.allowDuplicates)
        out.push({ path: "", message: `duplicate entries for key ${element}` });
      seen.add(element);
    }
    out.push(...prefixed(element, typedErrors(child, t.l, at)));
  }
  return out;
}

function keyedElement(t: ListType, child: JsonValue): { element: string; error?: undefined } | { error: string } {
  if (child === null) return { error: "associative list with keys may not have a null element" };
  if (!isObject(child)) return { error: "associative list with keys may not have non-map elements" };
  const keys = t.k ?? [];
  const parts: [string, unknown][] = [];
  for (const k of keys) {
    if (Object.hasOwn(child, k)) parts.push([k, child[k]]);
    else if (t.d !== undefined && Object.hasOwn(t.d, k)) parts.push([k, t.d[k]]);
  }
  if (parts.length === 0)
    return {
      error: `associative list with keys has an element that omits all key fields ${goQuotedList(keys)} (and doesn't have default values for any key fields)`,
    };
  parts.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { element: `[${parts.map(([k, v]) => `${k}=${toValueString(v)}`).join(",")}]` };
}

function setElement(child: JsonValue): { element: string; error?: undefined } | { error: string } {
  if (isObject(child)) return { error: "associative list without keys has an element that's a map type" };
  if (Array.isArray(child)) return { error: "not supported: associative list with lists as elements" };
  if (child === null) return { error: "associative list without keys has an element that's an explicit null" };
  return { element: `[=${toValueString(child)}]` };
}

function scalarErrors(t: "s" | "n" | "b" | "u", value: JsonValue): ValidationError[] {
  const scalar = typeof value === "string" || typeof value === "number" || typeof value === "boolean";
  switch (t) {
    case "n":
      return typeof value === "number"
        ? []
        : [{ path: "", message: `expected numeric (int or float), got ${goTypeName(value)}` }];
    case "s":
      return typeof value === "string" ? [] : [{ path: "", message: `expected string, got ${goSharp(value)}` }];
    case "b":
      return typeof value === "boolean" ? [] : [{ path: "", message: `expected boolean, got ${goPointer(value)}` }];
    case "u":
      return scalar ? [] : [{ path: "", message: `expected any scalar, got ${goPointer(value)}` }];
  }
}

/** structured-merge-diff's value.ToString: strings quoted, numbers and booleans as they are. */
function toValueString(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

function goQuotedList(items: readonly string[]): string {
  return `[${items.map((s) => JSON.stringify(s)).join(" ")}]`;
}

/** Go's %T of the unstructured value. */
function goTypeName(v: JsonValue): string {
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (Array.isArray(v)) return "[]interface {}";
  if (isObject(v)) return "map[string]interface {}";
  return "<nil>";
}

/** Go's %v of the unstructured value. */
function goValue(v: JsonValue): string {
  if (v === null) return "<nil>";
  if (Array.isArray(v)) return `[${v.map(goValue).join(" ")}]`;
  if (isObject(v))
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goValue(v[k] ?? null)}`)
      .join(" ")}]`;
  return String(v);
}

/** Go's %v of a structured-merge-diff value (a pointer to the unstructured value). */
function goPointer(v: JsonValue): string {
  return `&{${goValue(v)}}`;
}

/** Go's %#v of a structured-merge-diff value. */
function goSharp(v: JsonValue): string {
  const inner = (x: JsonValue): string => {
    if (x === null) return "interface {}(nil)";
    if (typeof x === "string") return JSON.stringify(x);
    if (Array.isArray(x)) return `[]interface {}{${x.map(inner).join(", ")}}`;
    if (isObject(x))
      return `map[string]interface {}{${Object.keys(x)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${inner(x[k] ?? null)}`)
        .join(", ")}}`;
    return String(x);
  };
  return `&value.valueUnstructured{Value:${inner(v)}}`;
}
