/**
 * The atomic lists and maps an ApplyConfiguration sets, which Kubernetes' patcher refuses ("invalid
 * ApplyConfiguration: may not mutate atomic arrays, maps or structs: .spec.tolerations,
 * .spec.containers[0].args"): setting one would replace it whole and drop what the policy did not
 * repeat. Walked as Kubernetes walks the patch: declared fields only, list elements by index; a
 * list of a free-form field (no type) is atomic, as are the lists and maps inside it.
 */
import { isObject, type JsonValue } from "../../api/json.js";
import type { TypedKinds, TypeNode } from "./typed-schema.js";

/** The paths of the atomic lists and maps `value` sets, in the order it sets them. */
export function atomicPaths(value: JsonValue, type: TypeNode, kinds: TypedKinds, path = ""): string[] {
  const t = kinds.resolve(type);
  if (t === "x") return untypedAtomics(value, path, true);
  if (typeof t === "string") return [];
  const out: string[] = [];
  if ("m" in t && isObject(value)) {
    if (t.a === 1) out.push(path);
    for (const [key, child] of Object.entries(value)) {
      const field = Object.hasOwn(t.m, key) ? t.m[key] : undefined;
      if (field !== undefined) out.push(...atomicPaths(child, field, kinds, `${path}.${key}`));
    }
  } else if ("l" in t && Array.isArray(value)) {
    if (t.r === "a") out.push(path);
    for (const [i, child] of value.entries()) out.push(...atomicPaths(child, t.l, kinds, `${path}[${i}]`));
  }
  return out;
}

/** A free-form value: its maps merge (deduced) at the top, lists are atomic, and inside a list everything is. */
function untypedAtomics(value: JsonValue, path: string, deduced: boolean): string[] {
  if (Array.isArray(value)) return [path, ...value.flatMap((v, i) => untypedAtomics(v, `${path}[${i}]`, false))];
  if (isObject(value) && !deduced) return [path];
  return [];
}
