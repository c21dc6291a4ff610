/**
 * The structure of Kubernetes' built-in kinds as structured-merge-diff types
 * (typed-schema-data.ts, tools/gen-typed-schemas.mjs), read on first use.
 */
import type { TypedSchemaData } from "./from-openapi.js";
import { TYPED_SCHEMA_JSON } from "./typed-schema-data.js";

/** A map type: its fields, the type of any other key (none: other keys are undeclared), atomic. */
export interface MapType {
  readonly m: Readonly<Record<string, TypeNode>>;
  readonly e?: TypeNode;
  readonly a?: 1;
}

/** A list type: its element type; atomic, set or map (by keys, with their defaults). */
export interface ListType {
  readonly l: TypeNode;
  readonly r: "a" | "s" | "m";
  readonly k?: readonly string[];
  readonly d?: Readonly<Record<string, unknown>>;
}

/** A reference whose map relationship the referring field overrides (x-kubernetes-map-type). */
interface Override {
  readonly t: number;
  readonly a: 0 | 1;
}

/** "x" anything, "s" string, "n" numeric, "b" boolean, "u" any scalar, a type's index, or a type. */
export type TypeNode = "x" | "s" | "n" | "b" | "u" | number | MapType | ListType | Override;

/** A type resolved: a scalar's letter, "x", a map or a list. */
type ResolvedType = "x" | "s" | "n" | "b" | "u" | MapType | ListType;

/** The types of the kinds an engine converts a MutatingPolicy's ApplyConfiguration with (EnginePorts.typedKinds). */
export interface TypedKinds {
  /** The type of an object of that apiVersion and kind, or undefined for a kind it does not know. */
  typeOf(apiVersion: string, kind: string): TypeNode | undefined;
  resolve(node: TypeNode): ResolvedType;
  /**
   * Why a kind typeOf does not know cannot be converted (Kyverno: no type converter for it, the
   * patch errs), or undefined where such a kind is merged unconverted (the built-in kinds offline).
   */
  missing?(apiVersion: string, kind: string): string | undefined;
}

/** The types of the kinds `data` declares, `data` read on first use. */
export function typedKindsOf(data: () => TypedSchemaData): TypedKinds {
  let loaded: TypedSchemaData | undefined;
  const load = (): TypedSchemaData => (loaded ??= data());
  const resolve = (node: TypeNode): ResolvedType => {
    if (typeof node === "number") return resolve(load().types[node] ?? "x");
    if (typeof node === "object" && "t" in node) {
      const target = resolve(node.t);
      if (typeof target === "object" && "m" in target)
        return node.a === 1 ? { ...target, a: 1 } : { m: target.m, ...(target.e !== undefined ? { e: target.e } : {}) };
      return target;
    }
    return node;
  };
  return {
    typeOf(apiVersion, kind) {
      const kinds = load().kinds;
      const key = `${apiVersion}/${kind}`;
      return Object.hasOwn(kinds, key) ? kinds[key] : undefined;
    },
    resolve,
  };
}

/**
 * `kinds` as Kyverno's CLI types offline: a kind they do not know has no type converter, so an
 * ApplyConfiguration on it errs (Kyverno: "type converter must not be nil"), never merged unconverted.
 */
export function offlineTypedKinds(kinds: TypedKinds): TypedKinds {
  return {
    typeOf: (apiVersion, kind) => kinds.typeOf(apiVersion, kind),
    resolve: (node) => kinds.resolve(node),
    missing: (apiVersion, kind) =>
      `type converter must not be nil: kind ${kind} (${apiVersion}) has no schema offline (give its CustomResourceDefinition: bylaw apply --crd-paths, or in a test a clusterResources file's spec.crds)`,
  };
}

/** Kubernetes 1.32's built-in kinds, as Kyverno v1.19's CLI types them. */
export const builtinTypedKinds: TypedKinds = typedKindsOf(() => JSON.parse(TYPED_SCHEMA_JSON) as TypedSchemaData);
