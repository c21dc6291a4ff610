/**
 * mutate.foreach (Kyverno `pkg/engine/handlers/mutation/common.go`): evaluate `list`, then patch once per element with `element` in scope,
 * each element seeing the patches of the ones before. patchStrategicMerge entries run in reverse
 * unless `order` says otherwise; patchesJson6902 entries run in list order. Preconditions skip an
 * element; nested foreach recurses with the resource patched so far.
 */
import type { JsonObject } from "../api/json.js";
import { jsonEqual } from "../api/json-equal.js";
import { isObject } from "../api/json.js";
import { enterScope } from "../context/enter-scope.js";
import { evaluateList, withElement } from "../foreach/evaluate-list.js";
import { applyPatchOf } from "./patch-block.js";
import type { MutateOutcome, MutateScope } from "./types.js";

const MAX_DEPTH = 8;

export function runForEachMutation(
  list: readonly JsonObject[],
  scope: MutateScope,
  depth: number,
  basePath: string,
): MutateOutcome {
  if (depth >= MAX_DEPTH)
    return {
      status: "error",
      message: `foreach nesting deeper than ${MAX_DEPTH} levels in rule ${scope.ruleName}`,
      resource: scope.resource,
    };
  let resource = scope.resource;
  // The entries whose elements changed the resource (Kyverno's applyCount): none makes the foreach a skip.
  let applied = 0;
  for (const [i, fe] of list.entries()) {
    const before = resource;
    const listExpr = typeof fe["list"] === "string" ? fe["list"] : "";
    const elements = evaluateList(listExpr, scope.vars);
    if (elements.kind === "error")
      return {
        status: "error",
        message: `failed to evaluate list ${listExpr}: ${elements.message}`,
        resource: scope.resource,
      };
    if (elements.kind === "missing") continue;
    const order = elementOrder(fe, elements.items.length);
    for (const index of order) {
      const element = elements.items[index];
      if (element === undefined) continue;
      const entered = enterScope(withElement(scope.vars, element, index, depth), fe["context"], fe["preconditions"]);
      if (entered.kind === "error") return { status: "error", message: entered.message, resource: scope.resource };
      if (entered.kind === "skip") continue;
      const vars = entered.vars;
      const here: MutateScope = { ...scope, resource, vars };
      const nested = fe["foreach"];
      if (Array.isArray(nested)) {
        const out = runForEachMutation(nested.filter(isObject), here, depth + 1, `${basePath}/${i}/foreach`);
        if (out.status === "error") return out;
        resource = out.resource;
        continue;
      }
      const step = applyPatchOf(fe, here, `${basePath}/${i}`);
      if (step === undefined)
        return {
          status: "error",
          message: `rule ${scope.ruleName}: foreach entry ${i} has no patchStrategicMerge, patchesJson6902 or foreach`,
          resource: scope.resource,
        };
      if (!step.ok) return { status: "error", message: step.error.message, resource: scope.resource };
      if (step.value.mismatch === undefined) resource = step.value.resource;
    }
    if (!jsonEqual(before, resource)) applied++;
  }
  return { status: applied === 0 ? "skip" : "pass", message: `${applied} elements processed`, resource };
}

/** Element indexes in processing order: `order` wins; otherwise strategic merge runs in reverse. */
function elementOrder(fe: JsonObject, n: number): number[] {
  const indexes = Array.from({ length: n }, (_, i) => i);
  const order = fe["order"];
  const descending = order === "Descending" || (order !== "Ascending" && fe["patchStrategicMerge"] !== undefined);
  return descending ? indexes.reverse() : indexes;
}
