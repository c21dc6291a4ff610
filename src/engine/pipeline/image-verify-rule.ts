/**
 * verifyImages rules in the pipeline: their entries read for the request (variables substituted),
 * then the validate side (pipeline/validate-policy.ts) or the mutate side (pipeline/mutate-policy.ts)
 * of engine/verify-images. A DELETE has no images to verify (Kyverno registers no handler for it).
 */
import type { Resource } from "../api/resource.js";
import { ruleResult, type RuleResult } from "../api/rule-result.js";
import { substituteAll, substituteString, type SubstitutionScope } from "../variables/index.js";
import { evaluateConditionBlocks } from "../conditions/index.js";
import type { AnyAllConditions } from "../api/policy.js";
import {
  extractImages,
  imageRuleEntries,
  mutateImages,
  validateImages,
  type AttestationConditions,
  type ImageRuleInput,
  type ImageSearch,
} from "../verify-images/index.js";
import { err, ok } from "../api/result.js";
import type { RuleRun } from "./rule-scope.js";

function input(run: RuleRun, vars: SubstitutionScope, resource: Resource): ImageRuleInput | RuleResult {
  const entries = imageRuleEntries(run.rule.rule, vars);
  if (!entries.ok) return ruleResult(run.rule.name, "ImageVerify", "error", entries.error.message);
  const images = extractImages(resource, run.rule.rule.imageExtractors, search(run));
  if (!images.ok)
    return ruleResult(run.rule.name, "ImageVerify", "error", `failed to instantiate handler: ${images.error.message}`);
  const old = run.request.operation === "UPDATE" ? run.request.request.oldResource : undefined;
  const conditions = attestationConditions(vars);
  return {
    policy: run.policy.name,
    rule: run.rule.name,
    entries: entries.value,
    resource,
    images: images.value,
    ports: run.env.ports,
    conditions,
    ...(old !== undefined ? { oldResource: old } : {}),
  };
}

/**
 * Attestation conditions as Kyverno evaluates them (`EvaluateConditions` in imageverifier.go): the
 * statement's predicate merged into the rule's context (its keys at the top, over the attestation's
 * `name` entry), then each any/all
 * block substituted and evaluated (the deciding messages too); compiled once per block of the
 * policy (the scope's cache).
 */
function attestationConditions(vars: SubstitutionScope): AttestationConditions {
  return (conditions, predicate, named) => {
    const blocks = (Array.isArray(conditions) ? conditions : []) as readonly AnyAllConditions[];
    const scope: SubstitutionScope = {
      ...vars,
      data: { ...vars.data, ...(named !== undefined ? { [named.name]: named.value } : {}), ...predicate },
    };
    const held = evaluateConditionBlocks(
      blocks,
      (v) => substituteAll(v, scope),
      {},
      (block) => vars.cache.conditions(block, "preconditions"),
    );
    if (!held.ok || !held.value.message.includes("{{")) return held;
    // Kyverno substitutes the conditions whole, their messages too.
    const message = substituteString(held.value.message, scope);
    return message.ok
      ? ok({
          ...held.value,
          message: typeof message.value === "string" ? message.value : JSON.stringify(message.value),
        })
      : held;
  };
}

/** An extractor's jmesPath, in the engine's interpreter with Kyverno's functions. */
function search(run: RuleRun): ImageSearch {
  return (expression, value) => {
    try {
      return ok(run.env.jmespath.compile(expression).search(value, run.env.fnctx));
    } catch (e) {
      return err("jmespath", e instanceof Error ? e.message : String(e));
    }
  };
}

export function validateImageRule(run: RuleRun, vars: SubstitutionScope): RuleResult | undefined {
  if (run.request.operation === "DELETE") return undefined;
  const i = input(run, vars, run.request.subject);
  return "entries" in i ? validateImages(i) : i;
}

export function mutateImageRule(
  run: RuleRun,
  vars: SubstitutionScope,
  resource: Resource,
): { results: readonly RuleResult[]; resource: Resource } {
  const i = input(run, vars, resource);
  return "entries" in i ? mutateImages(i) : { results: [i], resource };
}
