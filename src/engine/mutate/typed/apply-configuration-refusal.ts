/**
 * What Kubernetes' ApplyConfiguration patcher (Kyverno's MutatingPolicy patcher offline) refuses
 * before it merges, in its order: the patch must convert to the kind's typed object (no undeclared
 * field, no scalar of the wrong type, no repeated list key), may set no atomic list or map, and the
 * object it merges into must convert too (repeated list keys allowed there).
 */
import type { JsonObject } from "../../api/json.js";
import { atomicPaths } from "./atomic-paths.js";
import type { TypedKinds } from "./typed-schema.js";
import { formatTypedErrors, typedErrors } from "./validate-typed.js";

/** The refusal, worded as Kubernetes words it, or undefined (for a kind `kinds` does not know: its `missing` reason, if any). */
export function applyConfigurationRefusal(
  object: JsonObject,
  patch: JsonObject,
  kinds: TypedKinds,
): string | undefined {
  const apiVersion = typeof object["apiVersion"] === "string" ? object["apiVersion"] : "";
  const kind = typeof object["kind"] === "string" ? object["kind"] : "";
  const type = kinds.typeOf(apiVersion, kind);
  if (type === undefined) return kinds.missing?.(apiVersion, kind);
  // The patch carries the object's apiVersion and kind, as the patcher sets them.
  const typedPatch: JsonObject = { ...patch, apiVersion, kind };
  const patchErrors = typedErrors(typedPatch, type, { kinds, allowDuplicates: false });
  if (patchErrors.length > 0)
    return `failed to convert patch object to typed object: ${formatTypedErrors(patchErrors)}`;
  const atomics = atomicPaths(typedPatch, type, kinds);
  if (atomics.length > 0)
    return `invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(", ")}`;
  const objectErrors = typedErrors(object, type, { kinds, allowDuplicates: true });
  if (objectErrors.length > 0)
    return `failed to convert original object to typed object: ${formatTypedErrors(objectErrors)}`;
  return undefined;
}
