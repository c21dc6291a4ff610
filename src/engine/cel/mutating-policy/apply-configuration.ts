/**
 * A MutatingPolicy's ApplyConfiguration merged into the object as server-side apply merges an
 * apply configuration (Kubernetes' MutatingAdmissionPolicy): maps merge field by field; a list
 * the schema keys (`x-kubernetes-list-map-keys`, else the patch merge key: containers by `name`)
 * merges element by element, new elements appended in their order; a list of scalars the schema
 * merges is a set (union, existing order first); every other list is atomic and replaced whole.
 * Custom resources have no schema here: their lists are atomic, their maps merge. A field set to
 * null is removed.
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import { fieldSchema, schemaForKind, type SchemaNode } from "../../mutate/strategic/index.js";
import { nilList } from "../../mutate/nil-list.js";

type ListSchema = NonNullable<NonNullable<ReturnType<typeof fieldSchema>>["list"]>;

/**
 * The object with `patch` applied; `apiVersion`/`kind` choose the schema of a built-in kind.
 * `schema: "deduced"` merges with no schema at all, as structured-merge-diff's deduced type
 * converter does (Kyverno's CLI applies a MutatingAdmissionPolicy with it): maps merge, every list
 * is atomic.
 */
export function applyConfiguration(
  object: JsonObject,
  patch: JsonObject,
  schema: "kind" | "deduced" = "kind",
): JsonObject {
  const apiVersion = typeof object["apiVersion"] === "string" ? object["apiVersion"] : "";
  const kind = typeof object["kind"] === "string" ? object["kind"] : "";
  return mergeMap(object, patch, schema === "deduced" ? undefined : schemaForKind(apiVersion, kind));
}

function mergeMap(base: JsonObject, patch: JsonObject, node: SchemaNode | undefined): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete out[key];
      continue;
    }
    const field = fieldSchema(node, key);
    out[key] = mergeValue(out[key], value, { node: field?.node, list: field?.list });
  }
  return out;
}

function mergeValue(
  base: JsonValue | undefined,
  patch: JsonValue,
  schema: { readonly node: SchemaNode | undefined; readonly list: ListSchema | undefined },
): JsonValue {
  if (isObject(patch)) return mergeMap(isObject(base) ? base : {}, patch, schema.node);
  if (Array.isArray(patch)) {
    // structured-merge-diff keeps the patch's own list where both sides are empty (or the list is
    // atomic): an empty one is then Go's nil slice (nil-list.ts).
    const empty = !Array.isArray(base) || base.length === 0;
    if (patch.length === 0 && (empty || atomic(schema.list))) return nilList();
    return Array.isArray(base) ? mergeList(base, patch, schema.list) : patch;
  }
  return patch;
}

/** A list that merges neither by key nor as a set (or has no schema) is replaced whole. */
function atomic(list: ListSchema | undefined): boolean {
  return list === undefined || (!list.merge && list.keys.length === 0);
}

function mergeList(base: readonly JsonValue[], patch: readonly JsonValue[], list: ListSchema | undefined): JsonValue[] {
  if (list === undefined || atomic(list)) return [...patch];
  if (list.keys.length === 0) {
    const out = [...base];
    for (const v of patch) if (!out.some((b) => sameScalar(b, v))) out.push(v);
    return out;
  }
  const keyOf = (v: JsonValue): string | undefined =>
    isObject(v) ? JSON.stringify(list.keys.map((k) => v[k] ?? null)) : undefined;
  const out = [...base];
  for (const element of patch) {
    const key = keyOf(element);
    const at = key === undefined ? -1 : out.findIndex((b) => keyOf(b) === key);
    const existing = at < 0 ? undefined : out[at];
    if (at >= 0 && isObject(existing) && isObject(element)) out[at] = mergeMap(existing, element, list.items);
    else out.push(element);
  }
  return out;
}

function sameScalar(a: JsonValue, b: JsonValue): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
