/**
 * The recursive strategic merge of one value, as kustomize's kyaml `merge2` does it (Kyverno's
 * `patchStrategicMerge`): maps merge key by key, `null` removes a key, scalars replace, lists go to
 * merge-list.ts. A patch may not change a value's kind (map, list or scalar): kyaml refuses with an
 * error, and so does this.
 */
import type { JsonObject, JsonValue } from "../../api/json.js";
import { isObject } from "../../api/json.js";
import { ok, type Result } from "../../api/result.js";
import { setOwn } from "../../api/set-own.js";
import { isMapDirectiveKey, PATCH_KEY, readPatchDirective } from "./directives.js";
import { applyMapDirectives } from "./map-directives.js";
import { mergeList } from "./merge-list.js";
import {
  ABSENT,
  childPath,
  copyMap,
  describeKind,
  mergeError,
  type MergeContext,
  type Merged,
} from "./merge-support.js";
import { fieldSchema } from "./schema.js";
import type { FieldSchema } from "./types.js";

/** Merges `patch` into `base` (undefined: absent) where the schema says `field`. */
export function mergeValue(
  base: JsonValue | undefined,
  patch: JsonValue,
  field: FieldSchema | undefined,
  path: string,
  ctx: MergeContext,
): Result<Merged> {
  if (patch === null) return ok(ABSENT);
  const present = base !== undefined && base !== null;
  if (isObject(patch)) {
    if (present && !isObject(base)) return kindMismatch(base, patch, path);
    return mergeMap(present ? base : undefined, patch, field, path, ctx);
  }
  if (Array.isArray(patch)) {
    if (present && !Array.isArray(base)) return kindMismatch(base, patch, path);
    return mergeList(present ? base : undefined, patch, field, path, ctx);
  }
  if (present && typeof base === "object") return kindMismatch(base, patch, path);
  return ok(patch);
}

/** Merges a patch map, honouring its `$patch` directive (delete, replace or merge). */
export function mergeMap(
  base: JsonObject | undefined,
  patch: JsonObject,
  field: FieldSchema | undefined,
  path: string,
  ctx: MergeContext,
): Result<Merged> {
  const directive = readPatchDirective(patch, path);
  if (!directive.ok) return directive;
  if (directive.value === "delete") return ok(ABSENT);
  return mergeFields(directive.value === "replace" ? undefined : base, patch, field, path, ctx);
}

/**
 * The fields of `patch` merged into a copy of `base`. Keys already in `base` keep their place; new
 * keys follow in sorted order (kyaml walks field names sorted), or in patch order when there was
 * no base map.
 */
function mergeFields(
  base: JsonObject | undefined,
  patch: JsonObject,
  field: FieldSchema | undefined,
  path: string,
  ctx: MergeContext,
): Result<JsonObject> {
  const out = base === undefined ? {} : copyMap(base);
  const added: [string, JsonValue][] = [];
  const directives: JsonObject = {};
  for (const key of Object.keys(patch)) {
    if (key === PATCH_KEY) continue;
    const value = patch[key] as JsonValue;
    if (ctx.typed && isMapDirectiveKey(key)) {
      setOwn(directives, key, value);
      continue;
    }
    const inBase = Object.hasOwn(out, key);
    const merged = mergeValue(
      inBase ? out[key] : undefined,
      value,
      fieldSchema(field?.node, key),
      childPath(path, key),
      ctx,
    );
    if (!merged.ok) return merged;
    if (merged.value === ABSENT) {
      if (inBase) delete out[key];
    } else if (inBase) {
      setOwn(out, key, merged.value);
    } else {
      added.push([key, merged.value]);
    }
  }
  if (base !== undefined) added.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key, value] of added) setOwn(out, key, value);
  return ctx.typed ? applyMapDirectives(out, directives, field, path) : ok(out);
}

function kindMismatch(base: JsonValue, patch: JsonValue, path: string): Result<Merged> {
  return mergeError(
    path,
    `cannot merge ${describeKind(patch)} into ${describeKind(base)}: the patch must keep the field's kind (as Kyverno's strategic merge requires)`,
  );
}
