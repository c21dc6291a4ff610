/**
 * Which exceptions apply to one rule of one request (Kyverno: the exception selector's
 * `Find(policyKey, rule)`, then `MatchesException`). An exception applies when
 *   1. it may be used here: its namespace is allowed (`--exceptionNamespace`) and, in a background
 *      scan, its `background` is not false;
 *   2. one of its entries names the policy exactly and one of the entry's ruleNames matches the rule
 *      name as a wildcard (`autogen-…` rules only when listed or matched by a wildcard);
 *   3. its `match` selects the request;
 *   4. its `conditions`, if any, hold. A condition that fails to evaluate drops that exception only.
 * The rule loop checks this after the rule's match/exclude and before its context entries and
 * preconditions, for every rule type.
 */
import { runConditions } from "../conditions/index.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";
import { wildcardMatch } from "../values/wildcard.js";
import type { CompiledException, ExceptionMatchInput, MatchExceptionsOptions } from "./types.js";

/** The key exceptions name a policy by: `namespace/name` for a Policy, the name for a ClusterPolicy. */
export function exceptionPolicyKey(policy: Pick<CompiledPolicy, "kind" | "name" | "namespace">): string {
  return policy.namespace !== "" ? `${policy.namespace}/${policy.name}` : policy.name;
}

/** Kyverno's `Exception.Contains`: the policy name is compared exactly, rule names as wildcards. */
export function exceptionCovers(exception: CompiledException, policy: string, rule: string): boolean {
  return exception.entries.some((e) => e.policyName === policy && e.ruleNames.some((r) => wildcardMatch(r, rule)));
}

/** Whether the exception may be used at all in this evaluation (namespace restriction, background). */
function exceptionUsable(
  exception: CompiledException,
  background: boolean,
  options: MatchExceptionsOptions = {},
): boolean {
  const allowed = options.allowedNamespaces ?? [];
  if (allowed.length > 0 && !allowed.includes(exception.namespace)) return false;
  return !background || exception.background;
}

/** The exceptions that apply to the rule and request, in the order given. */
export function matchExceptions(
  exceptions: readonly CompiledException[],
  input: ExceptionMatchInput,
  options: MatchExceptionsOptions = {},
): CompiledException[] {
  const matched: CompiledException[] = [];
  for (const exception of exceptions) {
    if (!exceptionUsable(exception, input.background === true, options)) continue;
    if (!exceptionCovers(exception, input.policy, input.rule)) continue;
    if (!exception.matcher.matches(input)) continue;
    if (exception.compiledConditions !== undefined) {
      const met = runConditions(exception.compiledConditions, input.substitute);
      if (!met.ok || !met.value.met) continue;
    }
    matched.push(exception);
  }
  return matched;
}
