/** Kyverno's exact message shapes for validate results (Kyverno `pkg/engine/handlers/validation/validate_resource.go`). */
import type { ValidateOutcome, ValidatePass, ValidateScope } from "./types.js";

function passMessage(rule: string): string {
  return `validation rule '${rule}' passed.`;
}

/** The shared pass of a rule, made once when the rule compiles. */
export function validatePass(rule: string): ValidatePass {
  const message = passMessage(rule);
  return { outcome: { status: "pass", message }, result: { rule, type: "Validation", status: "pass", message } };
}

/** The rule's pass outcome: the one made at compile time, or a new one. */
export function passOutcome(scope: Pick<ValidateScope, "ruleName" | "passed">): ValidateOutcome {
  return scope.passed?.outcome ?? { status: "pass", message: passMessage(scope.ruleName) };
}

/**
 * A foreach rule's own answers: Kyverno's validateForEach says "rule passed" when an element applied
 * and "rule skipped" when none did, not the pattern rule's "validation rule 'x' passed.".
 */
export const FOREACH_PASS: ValidateOutcome = { status: "pass", message: "rule passed" };

export function anyPatternPassMessage(rule: string, index: number): string {
  return `validation rule '${rule}' anyPattern[${index}] passed.`;
}

function withDot(message: string): string {
  return message.endsWith(".") ? message : `${message}.`;
}

export function patternFailMessage(rule: string, message: string, path: string): string {
  return message === ""
    ? `validation error: rule ${rule} failed at path ${path}`
    : `validation error: ${withDot(message)} rule ${rule} failed at path ${path}`;
}

/** A pattern or patch whose variables cannot be substituted (Kyverno: "variable substitution failed: <why>"). */
export function substitutionFailed(detail: string): string {
  return `variable substitution failed: ${detail}`;
}

export function messageSubstitutionError(rule: string, detail: string): string {
  return `validation error: variables substitution error in rule ${rule} execution error: ${detail}`;
}
