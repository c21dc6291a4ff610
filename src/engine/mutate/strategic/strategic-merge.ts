/**
 * Kyverno's `patchStrategicMerge` merge step: the (anchor-free) patch merged into the resource the
 * way kustomize's kyaml `merge2.Merge` does with `ListIncreaseDirection: Prepend`, driven by the
 * Kubernetes patch metadata of the resource's kind. Inputs are never modified; untouched subtrees
 * may be shared with the result.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { isObject } from "../../api/json.js";
import { err, ok, type Result } from "../../api/result.js";
import { ABSENT, ERROR_KIND, describeKind } from "./merge-support.js";
import { mergeValue } from "./merge-value.js";
import { schemaForKind } from "./schema.js";
import type { SchemaNode } from "./types.js";

/**
 * Merges `patch` into `base` with `node` as the schema of `base`. Without a node (a custom resource)
 * maps still merge and honour `$patch`, and lists replace, as kyaml does with no schema.
 */
export function strategicMerge(
  base: JsonValue | undefined,
  patch: JsonValue,
  node: SchemaNode | undefined,
): Result<JsonValue> {
  if (patch === null) return ok(null);
  const merged = mergeValue(base, patch, node === undefined ? undefined : { node, retainKeys: false }, "", {
    typed: node !== undefined,
  });
  if (!merged.ok) return merged;
  if (merged.value === ABSENT)
    return err(ERROR_KIND, "(root): the patch deletes the whole value ($patch: delete at the top level)");
  return ok(merged.value);
}

/** Merges `patch` into `resource`, with the schema of the resource's apiVersion/kind (the patch's if the resource has none). */
export function strategicMergeResource(resource: JsonObject, patch: JsonObject): Result<JsonObject> {
  const [apiVersion, kind] = typeMeta(resource) ?? typeMeta(patch) ?? ["", ""];
  const merged = strategicMerge(resource, patch, schemaForKind(apiVersion, kind));
  if (!merged.ok) return merged;
  if (!isObject(merged.value))
    return err(ERROR_KIND, `(root): the merge turned the resource into ${describeKind(merged.value)}`);
  return ok(merged.value);
}

function typeMeta(obj: JsonObject): [string, string] | undefined {
  const apiVersion = Object.hasOwn(obj, "apiVersion") ? obj["apiVersion"] : undefined;
  const kind = Object.hasOwn(obj, "kind") ? obj["kind"] : undefined;
  if (typeof apiVersion !== "string" || typeof kind !== "string" || apiVersion === "" || kind === "") return undefined;
  return [apiVersion, kind];
}
