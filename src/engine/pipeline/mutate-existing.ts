/**
 * Mutate-existing rules (`mutate.targets`; Kyverno `pkg/engine/handlers/mutation/*`): the trigger request selects other resources
 * (targets), and the rule's patch is applied to each with `target` in scope. In a cluster the
 * background controller writes the patched targets; offline the CLI compares or prints them.
 */
import type { JsonObject, JsonValue } from "../api/json.js";
import { isObject } from "../api/json.js";
import type { LabelSelector } from "../api/policy.js";
import { resourceName, type Resource } from "../api/resource.js";
import type { RuleResult } from "../api/rule-result.js";
import { enterScope } from "../context/enter-scope.js";
import type { ExistingResources } from "../generate/index.js";
import { runMutation } from "../mutate/run-mutation.js";
import type { CompiledRule, KyvernoCompiledPolicy } from "../policy/compiled-policy.js";
import { evaluateSelector } from "../match/label-selector.js";
import { wildcardMatch } from "../values/wildcard.js";
import { substituteAll, type SubstitutionScope } from "../variables/index.js";
import { ruleResult } from "../api/rule-result.js";

/** One RuleResult per target the rule selected (each with `patchedTarget`), or one error/skip. */
export function mutateTargets(
  policy: KyvernoCompiledPolicy,
  compiled: CompiledRule,
  vars: SubstitutionScope,
  existing: ExistingResources | undefined,
): RuleResult[] {
  const name = compiled.name;
  const mutate = compiled.rule.mutate ?? {};
  const specs = Array.isArray(mutate["targets"]) ? mutate["targets"].filter(isObject) : [];
  if (existing === undefined)
    return [
      ruleResult(
        name,
        "Mutation",
        "error",
        `rule ${name} mutates existing resources (mutate.targets), but no existing resources were given (--target-resource, or targetResources in a test)`,
      ),
    ];
  const patchBlock: JsonObject = {};
  for (const [k, v] of Object.entries(mutate)) if (k !== "targets") patchBlock[k] = v;
  const results: RuleResult[] = [];
  for (const [i, raw] of specs.entries()) {
    const { context, preconditions, ...selectable } = raw;
    const spec = substituteAll(selectable, { ...vars, basePath: `/mutate/targets/${i}` });
    if (!spec.ok || !isObject(spec.value)) {
      results.push(
        ruleResult(
          name,
          "Mutation",
          "error",
          `failed to substitute variables in mutate.targets[${i}]: ${spec.ok ? "not a mapping" : spec.error.message}`,
        ),
      );
      continue;
    }
    const found = findTargets(spec.value, existing, policy);
    if (typeof found === "string") {
      results.push(ruleResult(name, "Mutation", "error", `mutate.targets[${i}]: ${found}`));
      continue;
    }
    for (const target of found) {
      const entered = enterScope(
        { ...vars, data: Object.assign({}, vars.data, { target }), target: true },
        context,
        preconditions,
      );
      if (entered.kind !== "ready") {
        results.push({ ...ruleResult(name, "Mutation", entered.kind, entered.message), patchedTarget: target });
        continue;
      }
      const scope = entered.vars;
      const out = runMutation(patchBlock, {
        ruleName: name,
        resource: target,
        vars: scope,
        jsonPatches: policy.jsonPatches,
      });
      results.push({ ...ruleResult(name, "Mutation", out.status, out.message), patchedTarget: out.resource });
    }
  }
  if (results.length === 0) return [ruleResult(name, "Mutation", "skip", "no target resources found")];
  return results;
}

function findTargets(
  spec: JsonObject,
  existing: ExistingResources,
  policy: KyvernoCompiledPolicy,
): Resource[] | string {
  const str = (k: string): string => (typeof spec[k] === "string" ? spec[k] : "");
  const apiVersion = str("apiVersion");
  const kind = str("kind");
  if (kind === "") return "kind is required";
  const namespace = policy.kind === "Policy" ? policy.namespace : str("namespace");
  if (policy.kind === "Policy" && str("namespace") !== "" && str("namespace") !== policy.namespace) {
    return `a namespaced Policy can only mutate targets in its own namespace ${policy.namespace} (got ${str("namespace")})`;
  }
  const name = str("name");
  const selector = isObject(spec["selector"]) ? (spec["selector"] as LabelSelector) : undefined;
  const listed = existing.list(apiVersion, kind, namespace, selector);
  if (!listed.ok) return listed.error.message;
  const uid = str("uid");
  const picked: Resource[] = [];
  for (const r of listed.value) {
    const meta = isObject(r["metadata"]) ? r["metadata"] : {};
    if (name !== "" && !wildcardMatch(name, resourceName(r))) continue;
    if (uid !== "" && meta["uid"] !== uid) continue;
    if (selector === undefined) {
      picked.push(r);
      continue;
    }
    // The port may offer every object of the kind (a list without the selector): it is applied here.
    const selected = evaluateSelector(selector, stringLabels(meta["labels"]));
    if (!selected.ok) return `selector: ${selected.error}`;
    if (selected.matched) picked.push(r);
  }
  return picked;
}

function stringLabels(v: JsonValue | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (isObject(v)) for (const [k, l] of Object.entries(v)) if (typeof l === "string") out[k] = l;
  return out;
}
