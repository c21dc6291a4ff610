/** The patch a mutate block or a foreach entry holds, substituted with the scope's variables and applied. */
import type { JsonObject, JsonValue } from "../api/json.js";
import type { Result } from "../api/result.js";
import { substituteAll } from "../variables/index.js";
import { applyJson6902, applyOverlay, type Patched } from "./apply-patches.js";
import type { MutateScope } from "./types.js";

/**
 * Substitutes and applies the patch a mutate block (or a foreach entry) holds, if any. Variables in a
 * patch are substituted with the scope's context; `basePath` is Kyverno's path of the block.
 */
export function applyPatchOf(block: JsonObject, scope: MutateScope, basePath: string): Result<Patched> | undefined {
  const smp = block["patchStrategicMerge"];
  if (smp !== undefined && smp !== null) {
    const substituted = substitute(smp, scope, `${basePath}/patchStrategicMerge`);
    if (!substituted.ok) return substituted;
    return applyOverlay(scope.resource, substituted.value);
  }
  const json = block["patchesJson6902"];
  if (json !== undefined && json !== null) {
    const substituted = substitute(json, scope, `${basePath}/patchesJson6902`);
    if (!substituted.ok) return substituted;
    return applyJson6902(scope.resource, substituted.value, scope.jsonPatches);
  }
  return undefined;
}

function substitute(value: JsonValue, scope: MutateScope, basePath: string): Result<JsonValue> {
  const out = substituteAll(value, { ...scope.vars, basePath });
  if (out.ok) return out;
  return {
    ok: false,
    // Kyverno's mutate.Mutate and mutate.ForEach: "variable substitution failed: <why>".
    error: { ...out.error, message: `variable substitution failed: ${out.error.message}` },
  };
}
