/**
 * The condition operator table (`pkg/engine/variables/operator/operator.go`, `utils.go`).
 * At evaluation time names are matched case-insensitively (`equals` works); at policy admission
 * only the exact spellings below are accepted, and `In`/`NotIn` draw a deprecation warning.
 */
import { allIn, allNotIn } from "./all-in.js";
import { anyIn, anyNotIn } from "./any-in.js";
import { durationOperator } from "./duration-operators.js";
import { equals, notEquals } from "./equal.js";
import { inOperator, notInOperator } from "./in.js";
import { numericOperator, type Comparison } from "./numeric.js";
import type { OperatorFn } from "./types.js";

/** Kyverno's operator names, exactly as a policy must spell them. */
export const OPERATOR_NAMES = [
  "Equal",
  "Equals",
  "NotEqual",
  "NotEquals",
  "In",
  "AnyIn",
  "AllIn",
  "NotIn",
  "AnyNotIn",
  "AllNotIn",
  "GreaterThanOrEquals",
  "GreaterThan",
  "LessThanOrEquals",
  "LessThan",
  "DurationGreaterThanOrEquals",
  "DurationGreaterThan",
  "DurationLessThanOrEquals",
  "DurationLessThan",
] as const;

type OperatorName = (typeof OPERATOR_NAMES)[number];

const DEPRECATED: Readonly<Record<string, readonly string[]>> = {
  In: ["AllIn", "AnyIn"],
  NotIn: ["AllNotIn", "AnyNotIn"],
};

const SIMPLE: Readonly<Record<string, OperatorFn>> = {
  equal: equals,
  equals,
  notequal: notEquals,
  notequals: notEquals,
  in: inOperator,
  anyin: anyIn,
  allin: allIn,
  notin: notInOperator,
  anynotin: anyNotIn,
  allnotin: allNotIn,
};

const COMPARISONS: Readonly<Record<string, Comparison>> = {
  greaterthan: "GreaterThan",
  greaterthanorequals: "GreaterThanOrEquals",
  lessthan: "LessThan",
  lessthanorequals: "LessThanOrEquals",
};

/** The operator for a name (any case), or `undefined` when Kyverno has no such operator. */
export function operatorFor(name: string): OperatorFn | undefined {
  const lower = name.toLowerCase();
  const simple = SIMPLE[lower];
  if (simple !== undefined) return simple;
  const comparison = COMPARISONS[lower];
  if (comparison !== undefined) return numericOperator(comparison, name === comparison);
  if (lower.startsWith("duration")) {
    const c = COMPARISONS[lower.slice("duration".length)];
    if (c !== undefined) return durationOperator(c, name === `Duration${c}`);
  }
  return undefined;
}

/** Whether the name is one of Kyverno's operators, spelled exactly. */
export function isKnownOperatorName(name: string): name is OperatorName {
  return (OPERATOR_NAMES as readonly string[]).includes(name);
}

/** The admission warning for a deprecated operator (`In`, `NotIn`), else `undefined`. */
export function operatorDeprecationWarning(name: string): string | undefined {
  const alternatives = DEPRECATED[name];
  if (alternatives === undefined) return undefined;
  return `Operator ${name} has been deprecated and will be removed soon. Use these instead: ${goQuotedList(alternatives)}`;
}

/**
 * What the policy checker reports for an operator name: the admission error for a name that is
 * not an exact Kyverno spelling, the deprecation warning for `In`/`NotIn`, else `undefined`.
 */
export function checkOperatorName(name: string): string | undefined {
  if (!isKnownOperatorName(name)) {
    return `entered value of \`operator\` is invalid. valid values: ${goQuotedList(OPERATOR_NAMES)}`;
  }
  return operatorDeprecationWarning(name);
}

/** Go's `%+q` of a string slice: `["a" "b"]`. */
function goQuotedList(items: readonly string[]): string {
  return `[${items.map((s) => JSON.stringify(s)).join(" ")}]`;
}
