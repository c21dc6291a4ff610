/**
 * The pass of a validate rule that needs no scope: a `pattern` or `anyPattern` with no variables
 * or references anywhere, on a rule without context entries. Such a rule's verdict, once its
 * preconditions (if any) are met, depends on the resource alone, so its patterns are compiled with
 * the policy and its pass results made once. The caller checks the preconditions first, on the
 * request's base context (validate-policy.ts, shared with the request's other rules); at evaluation
 * a passing resource returns the pass result at once.
 *
 * A `pattern` rule whose message holds no variables also answers a plain failure (not on UPDATE,
 * where allowExistingViolations needs the old object): its text depends on the failing path alone,
 * so the result for a path is made once and given again, as the same object, to every resource
 * that fails there. The webhook's denial text then finds the message already rendered.
 * Anything else (a skip, an error, an UPDATE failure, or a request that carries PolicyExceptions)
 * goes the full way, which writes Kyverno's messages.
 */
import type { JsonValue } from "../api/json.js";
import type { Rule } from "../api/policy.js";
import type { Operation } from "../api/resource.js";
import type { RuleResult } from "../api/rule-result.js";
import type { CompiledPattern, PatternCache, PatternOutcome } from "../pattern/index.js";
import { anyPatternPassMessage, patternFailMessage } from "./messages.js";
import { holdsNoVariables } from "../variables/inert.js";
import { ruleResult } from "../api/rule-result.js";

/**
 * The rule's result for this resource, or undefined: evaluate the rule the full way. `shared` holds
 * the outcomes of patterns already matched against this same resource, by the pattern's text: the
 * rules of one request with the same pattern (copies of a policy, a pattern repeated across a set)
 * match it once (issue 39, shared work across rules). The caller keeps it for one resource only.
 */
export type FastPass = (
  resource: JsonValue,
  operation: Operation,
  shared: SharedPatternOutcomes,
) => RuleResult | undefined;

/** Outcomes of patterns matched against one resource, by the pattern's JSON text. */
export type SharedPatternOutcomes = Map<string, PatternOutcome>;

/** The pattern's outcome on `resource`, from `shared` when a pattern of the same text was matched against it already. */
function matchShared(
  compiled: CompiledPattern,
  text: string,
  resource: JsonValue,
  shared: SharedPatternOutcomes,
): PatternOutcome {
  let outcome = shared.get(text);
  if (outcome === undefined) {
    outcome = compiled.match(resource);
    shared.set(text, outcome);
  }
  return outcome;
}

/** Failing paths whose results a rule keeps; a rule that fails at more starts over. */
const FAILURES_KEPT = 64;

/**
 * The fast pass for a rule, when it has one. `pass` is the rule's pass result made at compile
 * time; the patterns come from the policy's cache, so the full path matches with the same objects.
 */
export function fastPassOf(rule: Rule, pass: RuleResult | undefined, patterns: PatternCache): FastPass | undefined {
  const v = rule.validate;
  if (v === undefined || pass === undefined) return undefined;
  if (v.deny !== undefined || v.podSecurity !== undefined || v.cel !== undefined || v.manifests !== undefined)
    return undefined;
  if (Array.isArray(rule.context) && rule.context.length > 0) return undefined;
  // validate.run-validation's order: deny, then pattern, then anyPattern.
  if (v.pattern !== undefined) {
    if (!holdsNoVariables(v.pattern)) return undefined;
    const compiled = patterns.get(v.pattern);
    const text = JSON.stringify(v.pattern);
    const message = v.message ?? "";
    if (message.includes("{{"))
      return (resource, _operation, shared) =>
        matchShared(compiled, text, resource, shared).status === "pass" ? pass : undefined;
    const failures = new Map<string, RuleResult>();
    return (resource, operation, shared) => {
      const outcome = matchShared(compiled, text, resource, shared);
      if (outcome.status === "pass") return pass;
      if (outcome.status !== "fail" || operation === "UPDATE") return undefined;
      let failed = failures.get(outcome.path);
      if (failed === undefined) {
        failed = ruleResult(
          rule.name,
          "Validation",
          "fail",
          patternFailMessage(rule.name, message, outcome.path),
          outcome.path,
        );
        if (failures.size >= FAILURES_KEPT) failures.clear();
        failures.set(outcome.path, failed);
      }
      return failed;
    };
  }
  if (v.anyPattern !== undefined && v.anyPattern.length > 0) {
    if (!holdsNoVariables(v.anyPattern)) return undefined;
    const compiled = v.anyPattern.map((p) => patterns.get(p));
    const texts = v.anyPattern.map((p) => JSON.stringify(p));
    const passes = compiled.map((_, i) =>
      ruleResult(rule.name, "Validation", "pass", anyPatternPassMessage(rule.name, i)),
    );
    return (resource, _operation, shared) => {
      for (let i = 0; i < compiled.length; i++)
        if (matchShared(compiled[i] as CompiledPattern, texts[i] as string, resource, shared).status === "pass")
          return passes[i];
      return undefined;
    };
  }
  return undefined;
}
