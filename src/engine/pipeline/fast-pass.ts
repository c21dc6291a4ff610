/**
 * The pass of a validate rule that needs no scope: a `pattern` or `anyPattern` with no variables
 * or references anywhere, on a rule without context entries or preconditions. Such a rule's
 * verdict depends on the resource alone, so its patterns are compiled with the policy and its pass
 * results made once. At evaluation a passing resource returns that result at once; anything else
 * (a failure, a skip, an error, or a request that carries PolicyExceptions) goes the full way,
 * which writes Kyverno's messages, so the fast path can only ever answer "pass".
 */
import type { JsonValue } from "../api/json.js";
import type { Rule } from "../api/policy.js";
import type { RuleResult } from "../api/rule-result.js";
import type { PatternCache } from "../pattern/index.js";
import { anyPatternPassMessage } from "../validate/messages.js";
import { holdsNoVariables } from "../variables/inert.js";
import { ruleResult } from "./rule-scope.js";

/** The rule's pass result for this resource, or undefined: evaluate the rule the full way. */
export type FastPass = (resource: JsonValue) => RuleResult | undefined;

/**
 * The fast pass for a rule, when it has one. `pass` is the rule's pass result made at compile
 * time; the patterns come from the policy's cache, so the full path matches with the same objects.
 */
export function fastPassOf(rule: Rule, pass: RuleResult | undefined, patterns: PatternCache): FastPass | undefined {
  const v = rule.validate;
  if (v === undefined || pass === undefined) return undefined;
  if (v.deny !== undefined || v.podSecurity !== undefined || v.cel !== undefined || v.manifests !== undefined) return undefined;
  if ((Array.isArray(rule.context) && rule.context.length > 0) || (rule.preconditions !== undefined && rule.preconditions !== null)) return undefined;
  // validate.run-validation's order: deny, then pattern, then anyPattern.
  if (v.pattern !== undefined) {
    if (!holdsNoVariables(v.pattern)) return undefined;
    const compiled = patterns.get(v.pattern);
    return (resource) => (compiled.match(resource).status === "pass" ? pass : undefined);
  }
  if (v.anyPattern !== undefined && v.anyPattern.length > 0) {
    if (!holdsNoVariables(v.anyPattern)) return undefined;
    const compiled = v.anyPattern.map((p) => patterns.get(p));
    const passes = compiled.map((_, i) => ruleResult(rule.name, "Validation", "pass", anyPatternPassMessage(rule.name, i)));
    return (resource) => {
      for (let i = 0; i < compiled.length; i++) if ((compiled[i] as (typeof compiled)[number]).match(resource).status === "pass") return passes[i];
      return undefined;
    };
  }
  return undefined;
}
