/**
 * What of a compiled policy `bylaw serve` loads but does not run, in two kinds (the guide's "no
 * silent pass"; issue 34 §2, issue 35 §1):
 * - a kind Bylaw does not evaluate yet (`language: "unsupported"`: kyverno.io CleanupPolicy, a CEL
 *   kind at a version Bylaw does not run): `unservedKind`. The policy webhook refuses it at
 *   `kubectl apply` and a policy folder holding one is refused at load.
 * - rules of a kind Bylaw serves that nothing runs, or that answer only errors: `generate` where the
 *   generate controller does not run (it runs with `serve --cluster --generate-controller-as SA`) and
 *   mutate-existing (`mutate.targets`) where that same background controller does not run, a field Bylaw does not run (`unsupported`), a verifyImages attestor it cannot
 *   verify (keyless, KMS, Rekor: `imageVerifyGaps`): `unservedRules`. The policy is served for what
 *   runs and is not Ready, its condition naming each rule and what is missing; `kubectl apply` and
 *   a policy folder's load warn with the same text.
 */
import {
  kyvernoRulesOf,
  type CompiledPolicy,
  type CompiledRule,
  imageVerifyGaps,
  isObject,
  mutateExistingRuleNames,
  notServedReason,
  type PolicyProblem,
  problem,
  kyvernoCompiledRules,
} from "../../engine/index.js";

export function unservedKind(policy: CompiledPolicy): PolicyProblem | undefined {
  return policy.language !== "unsupported" ? undefined : problem("kind", notServedReason(policy));
}

/**
 * What runs beyond admission: `generate` when the background controller runs generate and
 * mutate-existing rules (in this process, or the background component in another, its Lease held:
 * component-presence.ts); `backgroundDown` when that component has been started but is not running
 * now (why, naming its Lease).
 */
export interface Runs {
  readonly generate?: boolean;
  readonly backgroundDown?: string;
}

/** Each of the policy's own rules (not autogen copies) that nothing runs or that answers only errors, with the field and why. */
export function unservedRules(policy: CompiledPolicy, runs: Runs = {}): PolicyProblem[] {
  if (policy.language === "unsupported") return [];
  if (policy.language === "generating") return runs.generate === true ? [] : [unservedGenerating(policy, runs)];
  if (policy.language === "mutating")
    return runs.generate === true || mutateExistingRuleNames(policy).length === 0
      ? []
      : [unservedMutateExisting(policy, runs)];
  const out: PolicyProblem[] = [];
  // A ValidatingPolicy's or ValidatingAdmissionPolicy's program whose CEL did not compile answers only errors.
  if (policy.language === "cel") {
    for (const p of policy.validating.programs)
      if (p.failure !== undefined)
        out.push({ severity: "warning", path: "spec", message: `rule ${p.resultName}: ${p.failure}` });
    return out;
  }
  const rules = kyvernoRulesOf(policy);
  for (const compiled of kyvernoCompiledRules(policy)) {
    if (compiled.autogenOf !== undefined) continue;
    const index = rules.findIndex((r) => r.name === compiled.name);
    const at = index === -1 ? "spec" : `spec.rules[${index}]`;
    for (const gap of unservedRule(compiled, runs))
      out.push({ severity: "warning", path: `${at}${gap.field}`, message: `rule ${compiled.name}: ${gap.message}` });
  }
  return out;
}

/** A GeneratingPolicy where its generate controller (the background component) does not run. */
function unservedGenerating(policy: CompiledPolicy, runs: Runs): PolicyProblem {
  const why =
    runs.backgroundDown !== undefined
      ? `Bylaw's background component, which runs GeneratingPolicies, is not running (${runs.backgroundDown}), so nothing would be generated`
      : "Bylaw does not run GeneratingPolicies here: its background component runs them (serve --component background, or serve --cluster --generate-controller-as SA), so nothing would be generated";
  return { severity: "warning", path: "spec.generate", message: `${policy.kind} ${policy.name}: ${why}` };
}

/** A MutatingPolicy with mutateExisting where the background controller that patches its targets does not run. */
function unservedMutateExisting(policy: CompiledPolicy, runs: Runs): PolicyProblem {
  const why =
    runs.backgroundDown !== undefined
      ? `Bylaw's background component, which runs mutate-existing, is not running (${runs.backgroundDown}), so no existing resource would be changed`
      : "Bylaw does not run mutate-existing here: its background controller runs it (serve --cluster --generate-controller-as SA), so no existing resource would be changed";
  return {
    severity: "warning",
    path: "spec.evaluation.mutateExisting",
    message: `${policy.kind} ${policy.name}: ${why}`,
  };
}

/** What of one rule `serve` does not run, each with the field under the rule (`.generate`) and why. */
export function unservedRule(
  compiled: CompiledRule,
  runs: Runs = {},
): { readonly field: string; readonly message: string }[] {
  const rule = compiled.rule;
  const out: { field: string; message: string }[] = [];
  if (isObject(rule.generate) && runs.generate !== true)
    out.push({
      field: ".generate",
      message:
        runs.backgroundDown !== undefined
          ? `Bylaw's background component, which runs generate rules, is not running (${runs.backgroundDown}), so nothing would be generated`
          : "Bylaw does not run generate rules here: its background controller runs them (serve --cluster --generate-controller-as SA), so nothing would be generated",
    });
  if (
    isObject(rule.mutate) &&
    Array.isArray(rule.mutate["targets"]) &&
    rule.mutate["targets"].length > 0 &&
    runs.generate !== true
  )
    out.push({
      field: ".mutate.targets",
      message:
        runs.backgroundDown !== undefined
          ? `Bylaw's background component, which runs mutate-existing rules (mutate.targets), is not running (${runs.backgroundDown}), so no existing resource would be changed`
          : "Bylaw does not run mutate-existing rules (mutate.targets) here: its background controller runs them (serve --cluster --generate-controller-as SA), so no existing resource would be changed",
    });
  if (compiled.unsupported !== undefined) out.push({ field: "", message: compiled.unsupported });
  const gaps = imageVerifyGaps(rule);
  if (gaps !== undefined) out.push({ field: ".verifyImages", message: `Bylaw cannot verify images with ${gaps}` });
  return out;
}
