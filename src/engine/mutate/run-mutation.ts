/**
 * One mutate rule's handler (Kyverno `pkg/engine/handlers/mutation/*`): substitute the rule's patch, apply it, and say what
 * happened. A patch that changes nothing is Kyverno's skip "no patches applied"; a foreach none of
 * whose entries changed the resource is its skip "0 elements processed".
 */
import type { JsonObject } from "../api/json.js";
import { isObject } from "../api/json.js";
import { jsonEqual } from "../api/json-equal.js";
import { resourceKind, resourceName, resourceNamespace, type Resource } from "../api/resource.js";
import { applyPatchOf } from "./patch-block.js";
import { runForEachMutation } from "./foreach-mutation.js";
import type { MutateOutcome, MutateScope } from "./types.js";

const NO_PATCHES = "no patches applied";

export function runMutation(mutate: JsonObject, scope: MutateScope): MutateOutcome {
  const foreach = mutate["foreach"];
  if (Array.isArray(foreach)) {
    const out = runForEachMutation(foreach.filter(isObject), scope, 0, "/mutate/foreach");
    if (out.status !== "pass") return out;
    return { status: "pass", message: mutatedMessage(out.resource), resource: out.resource };
  }
  const step = applyPatchOf(mutate, scope, "/mutate");
  if (step === undefined)
    return {
      status: "error",
      message: `rule ${scope.ruleName}: the mutate rule has no patchStrategicMerge, patchesJson6902 or foreach`,
      resource: scope.resource,
    };
  if (!step.ok) return { status: "error", message: step.error.message, resource: scope.resource };
  // A global anchor that does not hold is Kyverno's plain "no patches applied" (which anchor is not said there either).
  if (step.value.mismatch !== undefined) return { status: "skip", message: NO_PATCHES, resource: scope.resource };
  return settle(scope, step.value.resource);
}

function settle(scope: MutateScope, patched: Resource): MutateOutcome {
  if (jsonEqual(patched, scope.resource)) return { status: "skip", message: NO_PATCHES, resource: scope.resource };
  return { status: "pass", message: mutatedMessage(patched), resource: patched };
}

function mutatedMessage(r: Resource): string {
  const ns = resourceNamespace(r);
  return `mutated ${resourceKind(r)}/${resourceName(r)}${ns === "" ? "" : ` in namespace ${ns}`}`;
}
