/**
 * The built-in kinds' types with the kinds of CustomResourceDefinitions added, as Kyverno's CLI types
 * a custom resource with the CRD files `--crd-paths` (or a test's `clusterResources` `spec.crds`)
 * gives: each version's openAPIV3Schema, with `apiVersion` and `kind` strings and `metadata` the
 * built-in ObjectMeta, as the API server publishes a CRD. A kind no CRD and no built-in declares is
 * merged unconverted, as before (builtinTypedKinds).
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import { typedSchemaFromOpenApi, type TypedSchemaData } from "./from-openapi.js";
import { type TypeNode, type TypedKinds, typedKindsOf } from "./typed-schema.js";
import { TYPED_SCHEMA_JSON } from "./typed-schema-data.js";

const str = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");

/** The CRDs' versions as one OpenAPI v3 document, each schema marked with its group, version and kind. */
function crdDocument(crds: readonly JsonObject[]): unknown {
  const schemas: Record<string, unknown> = {};
  for (const crd of crds) {
    const spec = isObject(crd["spec"]) ? crd["spec"] : {};
    const names = isObject(spec["names"]) ? spec["names"] : {};
    const group = str(spec["group"]);
    const kind = str(names["kind"]);
    for (const v of Array.isArray(spec["versions"]) ? spec["versions"] : []) {
      if (!isObject(v)) continue;
      const version = str(v["name"]);
      const schema =
        isObject(v["schema"]) && isObject(v["schema"]["openAPIV3Schema"]) ? v["schema"]["openAPIV3Schema"] : {};
      const properties = isObject(schema["properties"]) ? schema["properties"] : {};
      schemas[`crd.${group}.${version}.${kind}`] = {
        ...schema,
        type: "object",
        properties: {
          ...properties,
          apiVersion: { type: "string" },
          kind: { type: "string" },
          metadata: { type: "object" },
        },
        "x-kubernetes-group-version-kind": [{ group, version, kind }],
      };
    }
  }
  return { components: { schemas } };
}

/** A type node with every type index moved by `by` (the CRDs' types appended after the built-in ones). */
function shifted(node: TypeNode, by: number): TypeNode {
  if (typeof node === "number") return node + by;
  if (typeof node === "string") return node;
  if ("t" in node) return { t: node.t + by, a: node.a };
  if ("m" in node) {
    const m: Record<string, TypeNode> = {};
    for (const [k, f] of Object.entries(node.m)) m[k] = shifted(f, by);
    return { ...node, m, ...(node.e !== undefined ? { e: shifted(node.e, by) } : {}) };
  }
  return { ...node, l: shifted(node.l, by) };
}

/** The built-in ObjectMeta's type, as a built-in kind's `metadata` field refers to it. */
function objectMeta(base: TypedSchemaData): TypeNode {
  const configMap = base.types[base.kinds["v1/ConfigMap"] ?? -1];
  return typeof configMap === "object" && "m" in configMap ? (configMap.m["metadata"] ?? "x") : "x";
}

/**
 * `first`'s kinds, then those of `then` that `first` does not declare (one index space: `then`'s
 * types follow `first`'s), as kubectl-validate's composite client prefers its first source.
 */
export function mergeTypedSchemaData(first: TypedSchemaData, then: TypedSchemaData): TypedSchemaData {
  const by = first.types.length;
  const kinds: Record<string, number> = { ...first.kinds };
  for (const [key, at] of Object.entries(then.kinds)) kinds[key] ??= at + by;
  return { kinds, types: [...first.types, ...then.types.map((t) => shifted(t, by))] };
}

/** The built-in kinds' types and the CRDs' (a built-in kind keeps its built-in type). */
export function typedSchemaWithCrds(crds: readonly JsonObject[]): TypedSchemaData {
  const base = JSON.parse(TYPED_SCHEMA_JSON) as TypedSchemaData;
  if (crds.length === 0) return base;
  const custom = typedSchemaFromOpenApi([crdDocument(crds)]);
  const merged = mergeTypedSchemaData(base, custom);
  const types = [...merged.types];
  // Each CRD kind's metadata is the built-in ObjectMeta (an index of `base`, which comes first).
  const meta = objectMeta(base);
  for (const at of Object.values(custom.kinds)) {
    const top = types[at + base.types.length];
    if (typeof top === "object" && "m" in top)
      types[at + base.types.length] = { ...top, m: { ...top.m, metadata: meta } };
  }
  return { kinds: merged.kinds, types };
}

export function typedKindsWithCrds(crds: readonly JsonObject[]): TypedKinds {
  return typedKindsOf(() => typedSchemaWithCrds(crds));
}
