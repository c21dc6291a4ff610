/**
 * The patch schema of the built-in Kubernetes kinds, parsed once from the generated
 * `schema-data.ts` into frozen nodes. Custom resources have no schema here: they merge as
 * JSON merge patch, as Kubernetes does.
 */
import { setOwn } from "../../api/set-own.js";
import { SCHEMA_DATA_JSON } from "./schema-data.js";
import type { FieldSchema, ListSchema, SchemaNode } from "./types.js";

interface RawField {
  readonly list?: number;
  readonly strategy?: string;
  readonly mergeKey?: string;
  readonly keys?: readonly string[];
  readonly ref?: string;
  readonly items?: string;
  readonly values?: string;
}

interface RawData {
  readonly kinds: Readonly<Record<string, readonly string[]>>;
  readonly defs: Readonly<Record<string, Readonly<Record<string, RawField>>>>;
}

interface Schema {
  /** `<apiVersion>/<kind>` → root node. */
  readonly kinds: Readonly<Record<string, SchemaNode>>;
}

const SCHEMA: Schema = buildSchema(JSON.parse(SCHEMA_DATA_JSON) as RawData);

/** The root schema of a built-in kind (`"v1"`, `"Pod"`; `"apps/v1"`, `"Deployment"`); undefined otherwise. */
export function schemaForKind(apiVersion: string, kind: string): SchemaNode | undefined {
  const key = `${apiVersion}/${kind}`;
  return Object.hasOwn(SCHEMA.kinds, key) ? SCHEMA.kinds[key] : undefined;
}

/** How `field` of `node` merges; undefined when the schema says nothing about it. */
export function fieldSchema(node: SchemaNode | undefined, field: string): FieldSchema | undefined {
  if (node === undefined) return undefined;
  return Object.hasOwn(node.fields, field) ? node.fields[field] : node.anyField;
}

/** The merge key of the list `field` of `node` (`name` for PodSpec.containers), if it merges by key. */
export function listMergeKey(node: SchemaNode | undefined, field: string): string | undefined {
  const list = fieldSchema(node, field)?.list;
  return list?.merge === true ? list.mergeKey : undefined;
}

interface MutableNode {
  name: string;
  fields: Record<string, FieldSchema>;
  anyField?: FieldSchema;
}

function buildSchema(raw: RawData): Schema {
  const nodes = new Map<string, MutableNode>();
  const nodeFor = (name: string): MutableNode => {
    let n = nodes.get(name);
    if (n === undefined) {
      n = { name, fields: Object.create(null) as Record<string, FieldSchema> };
      nodes.set(name, n);
    }
    return n;
  };
  const mapOf = (name: string): SchemaNode =>
    Object.freeze({
      name: `map[string]${name}`,
      fields: Object.freeze(Object.create(null) as Record<string, FieldSchema>),
      anyField: Object.freeze({ node: nodeFor(name), retainKeys: false }),
    });
  for (const [name, fields] of Object.entries(raw.defs)) {
    const node = nodeFor(name);
    for (const [fieldName, f] of Object.entries(fields)) {
      setOwn(node.fields, fieldName, Object.freeze(toField(f, nodeFor, mapOf)));
    }
  }
  const kinds = Object.create(null) as Record<string, SchemaNode>;
  for (const [name, gvks] of Object.entries(raw.kinds)) {
    for (const gvk of gvks) setOwn(kinds, gvk, nodeFor(name));
  }
  for (const n of nodes.values()) Object.freeze(Object.freeze(n).fields);
  return Object.freeze({ kinds: Object.freeze(kinds) });
}

function toField(f: RawField, nodeFor: (name: string) => SchemaNode, mapOf: (name: string) => SchemaNode): FieldSchema {
  const strategies = (f.strategy ?? "").split(",");
  const retainKeys = strategies.includes("retainKeys");
  if (f.list === 1) {
    const merge = strategies.includes("merge");
    const keys = f.keys ?? (f.mergeKey === undefined ? [] : [f.mergeKey]);
    const list: ListSchema = {
      merge,
      keys: Object.freeze([...keys]),
      retainKeys,
      ...(f.strategy === undefined ? {} : { strategy: f.strategy }),
      ...(f.mergeKey === undefined ? {} : { mergeKey: f.mergeKey }),
      ...(f.items === undefined ? {} : { items: nodeFor(f.items) }),
    };
    return {
      list: Object.freeze(list),
      retainKeys: false,
      ...(f.strategy === undefined ? {} : { strategy: f.strategy }),
    };
  }
  const node = f.ref !== undefined ? nodeFor(f.ref) : f.values !== undefined ? mapOf(f.values) : undefined;
  return {
    retainKeys,
    ...(node === undefined ? {} : { node }),
    ...(f.strategy === undefined ? {} : { strategy: f.strategy }),
  };
}
