/**
 * What an evaluation worker rebuilds a policy of any kind from (ADR 0005): the policy's own document
 * and the bindings it compiled with (`CompiledPolicy.origin`), and whether the server compiled it as
 * a served policies.kyverno.io policy (policy-source/cel-policy-compile.ts: a MutatingPolicy is served
 * as an error for what its matchConstraints match) or as the engine compiles any document. A policy
 * a worker still cannot compile makes only the jobs that run it evaluation errors
 * (evaluation-worker.ts), never a pass.
 */
import type { CompiledPolicy, CompileOutcome, Engine, JsonObject } from "../../engine/index.js";
import { compileGuarded } from "../../platform/policy-documents/index.js";
import { compileCelPolicy, servedVariant } from "../policy-source/cel-policy-compile.js";

export interface PolicyRecipe {
  readonly document: JsonObject;
  readonly bindings: readonly JsonObject[];
  readonly via: "engine" | "served-cel";
}

export function recipeOf(policy: CompiledPolicy): PolicyRecipe {
  return {
    document: policy.origin.document,
    bindings: policy.origin.bindings,
    via: servedVariant(policy) ? "served-cel" : "engine",
  };
}

export function rebuildPolicy(engine: Engine, recipe: PolicyRecipe): CompileOutcome {
  if (recipe.via === "engine")
    return recipe.bindings.length > 0
      ? engine.compile(recipe.document, { bindings: recipe.bindings })
      : compileGuarded(engine, recipe.document);
  const served = compileCelPolicy(recipe.document, engine);
  return served.policy !== undefined
    ? { ok: true, policy: served.policy }
    : { ok: false, problems: [...served.problems] };
}
