/**
 * The JMESPath engine with Kyverno's functions and the default limits, built once per process on
 * first use and shared by every engine, as the CEL environments are (cel/shared-cel.ts). Building it
 * binds some 200 function signatures; `bylaw test` makes an engine per suite, and over the policy
 * library's 492 suites that was ~1–2 % of the run's CPU.
 *
 * Sharing is safe: the engine holds only its function table and limits, read-only once built, and
 * `compile` keeps no cache (each policy's ExpressionCache is its own). What a function reads at
 * evaluation time (an engine's ports) comes in each search's context (`fnctx`), never from here.
 */
import { kyvernoFunctions } from "./functions/kyverno/index.js";
import { createJmesPath } from "./create-engine.js";

let shared: ReturnType<typeof createJmesPath> | undefined;

export function sharedJmesPath(): ReturnType<typeof createJmesPath> {
  return (shared ??= createJmesPath({ functions: kyvernoFunctions() }));
}
