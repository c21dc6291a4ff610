/**
 * validate.deny: conditions that hold mean the resource is denied (fail). The failure text is the
 * rule message and the deciding condition messages joined by "; ", with variables substituted; if
 * that substitution fails, Kyverno shows the condition messages alone.
 */
import type { Conditions } from "../api/policy.js";
import type { CompiledConditions } from "../conditions/index.js";
import { runScopeConditions } from "../context/shared-conditions.js";
import { substituteString } from "../variables/index.js";
import { passOutcome } from "./messages.js";
import type { ValidateOutcome, ValidateScope } from "./types.js";

export function validateDeny(
  conditions: Conditions | undefined,
  message: string | undefined,
  scope: ValidateScope,
): ValidateOutcome {
  return validateCompiledDeny(scope.vars.cache.conditions(conditions, "deny conditions"), message, scope);
}

/** `validateDeny` with the deny conditions already compiled (a foreach compiles them once for all its elements). */
export function validateCompiledDeny(
  conditions: CompiledConditions,
  message: string | undefined,
  scope: ValidateScope,
): ValidateOutcome {
  const result = runScopeConditions(conditions, scope.vars);
  if (!result.ok) return { status: "error", message: `failed to check deny conditions: ${result.error.message}` };
  if (!result.value.met) return passOutcome(scope);
  const combined = [message ?? "", result.value.message].filter((m) => m !== "").join("; ");
  if (combined === "") return { status: "fail", message: `validation error: rule ${scope.ruleName} failed` };
  if (!combined.includes("{{")) return { status: "fail", message: combined };
  const substituted = substituteString(combined, scope.vars);
  if (!substituted.ok) return { status: "fail", message: result.value.message };
  const text = typeof substituted.value === "string" ? substituted.value : JSON.stringify(substituted.value);
  return { status: "fail", message: text };
}
