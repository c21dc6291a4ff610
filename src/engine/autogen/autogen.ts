/**
 * Autogen of pod-controller rules (Kyverno `pkg/autogen/v1`). For each rule matching
 * Pod, Kyverno adds `autogen-<rule>` (DaemonSet, Deployment, Job, StatefulSet, ReplicaSet,
 * ReplicationController, nested under `spec.template`) and `autogen-cronjob-<rule>` (CronJob,
 * nested under `spec.jobTemplate.spec.template`), names truncated to 63 characters.
 */
import type { JsonObject, JsonValue } from "../api/json.js";
import type { PolicyDocument, Rule } from "../api/policy.js";
import { requestedControllers, stripCronJob, templateControllerKinds, wantsCronJob } from "./controllers.js";
import { finalizeRule } from "./finalize-rule.js";
import { generateRule, type FilterRewrite } from "./generate-rule.js";
import { asArray, asObject } from "./json-copy.js";
import { containsKind, qualifyKinds } from "./kind-names.js";

const MAX_NAME = 63;

function autogenRuleName(prefix: string, name: string): string {
  return `${prefix}-${name}`.slice(0, MAX_NAME);
}

export function isAutogenRuleName(name: string): boolean {
  return name.startsWith("autogen-");
}

/**
 * The generated rules (not the originals), in Kyverno's order: for each rule in turn, its
 * `autogen-` rule then its `autogen-cronjob-` rule.
 */
export function autogenRules(policy: PolicyDocument): Rule[] {
  const controllers = requestedControllers(policy);
  if (controllers === "none") return [];
  const out: Rule[] = [];
  for (const rule of policy.spec.rules ?? []) {
    const source = rule as unknown as JsonObject;
    const pod = podControllersRule(source, stripCronJob(controllers));
    if (pod !== undefined) out.push(finalizeRule(pod, "Pod") as unknown as Rule);
    const cron = cronJobRule(source, controllers);
    if (cron !== undefined) out.push(finalizeRule(cron, "CronJob") as unknown as Rule);
  }
  return out;
}

/**
 * The rules Kyverno evaluates for a policy (`ComputeRules`): when autogen produced rules, the
 * originals minus any already named `autogen-…`, followed by the generated rules; otherwise the
 * policy's rules unchanged.
 */
export function computeRules(policy: PolicyDocument): Rule[] {
  const rules = policy.spec.rules ?? [];
  const generated = autogenRules(policy);
  if (generated.length === 0) return [...rules];
  return [...rules.filter((r) => !isAutogenRuleName(r.name)), ...generated];
}

/** Every kind written in a block's legacy resources, all[] and any[] (Kyverno `GetKinds`). */
function kindsOf(block: JsonValue | undefined): string[] {
  const b = asObject(block);
  if (b === undefined) return [];
  const kinds = (rd: JsonValue | undefined): string[] =>
    asArray(asObject(rd)?.["kinds"]).filter((k): k is string => typeof k === "string");
  const filters = [...asArray(b["all"]), ...asArray(b["any"])];
  return [...kinds(b["resources"]), ...filters.flatMap((f) => kinds(asObject(f)?.["resources"]))];
}

const retargetPodFilters: FilterRewrite = (filters, kinds) =>
  filters.map((f) => {
    const filter = asObject(f);
    const resources = asObject(filter?.["resources"]);
    if (filter === undefined || resources === undefined) return f;
    const written = asArray(resources["kinds"]).filter((k): k is string => typeof k === "string");
    return containsKind(written, "Pod") ? { ...filter, resources: { ...resources, kinds: qualifyKinds(kinds) } } : f;
  });

const retargetAllFilters: FilterRewrite = (filters, kinds) =>
  filters.map((f) => {
    const filter = asObject(f) ?? {};
    return { ...filter, resources: { ...(asObject(filter["resources"]) ?? {}), kinds: qualifyKinds(kinds) } };
  });

/** `autogen-<rule>` before its final shaping, or undefined when the rule does not qualify. */
function podControllersRule(rule: JsonObject, controllers: string): JsonObject | undefined {
  const name = typeof rule["name"] === "string" ? rule["name"] : "";
  if (isAutogenRuleName(name) || controllers === "") return undefined;
  const excludeKinds = kindsOf(rule["exclude"]);
  if (!containsKind(kindsOf(rule["match"]), "Pod")) return undefined;
  if (excludeKinds.length > 0 && !containsKind(excludeKinds, "Pod")) return undefined;
  const nesting = { templateKey: "template", shift: "spec/template" };
  return generateRule(
    autogenRuleName("autogen", name),
    rule,
    nesting,
    templateControllerKinds(controllers),
    retargetPodFilters,
  );
}

/** `autogen-cronjob-<rule>`: built from the `autogen-` rule, nested once more under the job template. */
function cronJobRule(rule: JsonObject, controllers: string): JsonObject | undefined {
  if (!wantsCronJob(controllers)) return undefined;
  const base = podControllersRule(rule, controllers);
  if (base === undefined) return undefined;
  const name = typeof rule["name"] === "string" ? rule["name"] : "";
  const nesting = { templateKey: "jobTemplate", shift: "spec/jobTemplate/spec/template" };
  return generateRule(autogenRuleName("autogen-cronjob", name), base, nesting, ["CronJob"], retargetAllFilters);
}
