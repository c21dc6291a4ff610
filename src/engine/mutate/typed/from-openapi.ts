/**
 * OpenAPI v3 documents (an API server's /openapi/v3 group-version documents, kubectl-validate's
 * builtins) converted to structured-merge-diff types, following kube-openapi's schemaconv: an
 * object's properties are its fields; `additionalProperties` (or no properties at all, or
 * x-kubernetes-preserve-unknown-fields) types the other keys, otherwise there are none; a list is
 * atomic unless x-kubernetes-list-type (set, map with x-kubernetes-list-map-keys) or a merge patch
 * strategy (with its merge key) makes it associative; x-kubernetes-map-type atomic marks a map
 * atomic; integer and number are numeric, a string with a format other than byte is any scalar; a
 * schema without a type accepts anything. Used by tools/gen-typed-schemas.mjs and at run time.
 */
import type { TypeNode } from "./typed-schema.js";

/** Kinds ("<apiVersion>/<Kind>") to the index of their type in `types`. */
export interface TypedSchemaData {
  readonly kinds: Readonly<Record<string, number>>;
  readonly types: readonly TypeNode[];
}

type Schema = Readonly<Record<string, unknown>>;

const REF = "#/components/schemas/";

const isSchema = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** The named type a property refers to ($ref, or allOf with one $ref), if any. */
function refName(s: Schema): string | undefined {
  if (typeof s["$ref"] === "string") return s["$ref"].slice(REF.length);
  const all = s["allOf"];
  if (Array.isArray(all) && all.length === 1 && isSchema(all[0]) && typeof all[0]["$ref"] === "string")
    return all[0]["$ref"].slice(REF.length);
  return undefined;
}

/** The named schemas of the documents (the first document naming one wins) and the kinds they declare. */
function collect(docs: readonly unknown[]): { schemas: Map<string, Schema>; kinds: Map<string, string> } {
  const schemas = new Map<string, Schema>();
  const kinds = new Map<string, string>();
  for (const doc of docs) {
    const components = isSchema(doc) && isSchema(doc["components"]) ? doc["components"]["schemas"] : undefined;
    if (!isSchema(components)) continue;
    for (const [name, s] of Object.entries(components)) {
      if (!isSchema(s)) continue;
      if (!schemas.has(name)) schemas.set(name, s);
      const gvks = s["x-kubernetes-group-version-kind"];
      for (const gvk of Array.isArray(gvks) ? gvks : []) {
        if (!isSchema(gvk)) continue;
        const apiVersion =
          gvk["group"] === "" ? `${String(gvk["version"])}` : `${String(gvk["group"])}/${String(gvk["version"])}`;
        const key = `${apiVersion}/${String(gvk["kind"])}`;
        if (!kinds.has(key)) kinds.set(key, name);
      }
    }
  }
  return { schemas, kinds };
}

/** One conversion: each named schema becomes one entry of `types`, referred to by its index. */
class Converter {
  readonly index = new Map<string, number>();
  readonly types: TypeNode[] = [];
  constructor(private readonly schemas: ReadonlyMap<string, Schema>) {}

  named(name: string, preserve: boolean): TypeNode {
    const key = preserve ? `${name}\u0000p` : name;
    const known = this.index.get(key);
    if (known !== undefined) return known;
    const s = this.schemas.get(name);
    if (s === undefined) return "x";
    const at = this.types.length;
    this.index.set(key, at);
    this.types.push("x");
    this.types[at] = this.node(s, preserve);
    return at;
  }
  ref(s: Schema, preserve: boolean): TypeNode {
    const name = refName(s);
    if (name === undefined) return this.node(s, preserve);
    const target = this.named(name, preserve);
    if (typeof target !== "number") return target;
    // A property's own x-kubernetes-map-type overrides the type's.
    if (s["x-kubernetes-map-type"] === "atomic") return { t: target, a: 1 };
    if (s["x-kubernetes-map-type"] === "granular") return { t: target, a: 0 };
    return target;
  }
  object(s: Schema, preserve: boolean): TypeNode {
    const fields: Record<string, TypeNode> = {};
    const properties = isSchema(s["properties"]) ? s["properties"] : {};
    for (const [name, p] of Object.entries(properties)) fields[name] = isSchema(p) ? this.ref(p, preserve) : "x";
    const extra = s["additionalProperties"];
    let e: TypeNode | undefined;
    if (extra === undefined || extra === null) {
      if (preserve || Object.keys(fields).length === 0) e = "x";
    } else if (isSchema(extra)) e = this.ref(extra, preserve);
    else if (extra === true) e = "x";
    return {
      m: fields,
      ...(e !== undefined ? { e } : {}),
      ...(s["x-kubernetes-map-type"] === "atomic" ? { a: 1 } : {}),
    };
  }
  list(s: Schema, preserve: boolean): TypeNode {
    const items = isSchema(s["items"]) ? s["items"] : undefined;
    const l = items === undefined ? "x" : this.ref(items, preserve);
    const listType = s["x-kubernetes-list-type"];
    const strategy = s["x-kubernetes-patch-strategy"];
    let r: "a" | "s" | "m" = "a";
    let k: string[] = [];
    if (listType === "set") r = "s";
    else if (listType === "map") {
      r = "m";
      const keys = s["x-kubernetes-list-map-keys"];
      k = Array.isArray(keys) ? keys.map(String) : [];
    } else if (listType === undefined && (strategy === "merge" || strategy === "merge,retainKeys")) {
      const key = s["x-kubernetes-patch-merge-key"];
      if (typeof key === "string") {
        r = "m";
        k = [key];
      } else r = "s";
    }
    if (r !== "m") return { l, r };
    const item = items === undefined ? undefined : (this.schemas.get(refName(items) ?? "") ?? items);
    const properties = item !== undefined && isSchema(item["properties"]) ? item["properties"] : {};
    const defaults: Record<string, unknown> = {};
    for (const key of k) {
      const p = properties[key];
      const d = isSchema(p) ? p["default"] : undefined;
      if (d !== undefined) defaults[key] = d;
    }
    return { l, r, k, ...(Object.keys(defaults).length > 0 ? { d: defaults } : {}) };
  }
  node(s: Schema, inherited: boolean): TypeNode {
    const preserve = inherited || s["x-kubernetes-preserve-unknown-fields"] === true;
    const type: unknown = Array.isArray(s["type"]) ? s["type"][0] : s["type"];
    switch (type) {
      case undefined:
        return "x";
      case "object":
        return this.object(s, preserve);
      case "array":
        return this.list(s, preserve);
      case "integer":
      case "number":
        return "n";
      case "boolean":
        return "b";
      case "string":
        return s["format"] === undefined || s["format"] === "" || s["format"] === "byte" ? "s" : "u";
      default:
        return "u";
    }
  }
}

/** The structured-merge-diff types of the kinds the documents declare (x-kubernetes-group-version-kind). */
export function typedSchemaFromOpenApi(docs: readonly unknown[]): TypedSchemaData {
  const { schemas, kinds } = collect(docs);
  const converter = new Converter(schemas);
  const kindIndex: Record<string, number> = {};
  for (const [key, name] of [...kinds].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const at = converter.named(name, false);
    if (typeof at === "number") kindIndex[key] = at;
  }
  return { kinds: kindIndex, types: converter.types };
}
