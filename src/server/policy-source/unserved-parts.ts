/**
 * What of a compiled policy `bylaw serve` loads but does not run (issue 34 §2, "until a kind runs, it
 * is refused, not half-served"):
 * - a policies.kyverno.io kind Bylaw does not evaluate yet (MutatingPolicy, ImageValidatingPolicy
 *   and their Namespaced kinds: `unsupportedKind`, set by cel-policy-compile.ts);
 * - rules no admission webhook runs: `generate` (Kyverno's background controller creates the
 *   resources) and mutate-existing (`mutate.targets`), while Bylaw has no controllers;
 * - a rule with a field Bylaw does not run (`unsupported`), or a verifyImages attestor it cannot
 *   verify (keyless, KMS, Rekor: `imageVerifyGaps`).
 * The policy webhook refuses a policy with any of them at `kubectl apply`, naming each; a policy
 * folder holding one is refused at load; a policy already stored in the cluster is served for what
 * runs (the rest answers errors, never a silent pass) and is not Ready, with these reasons.
 */
import {
  type CompiledPolicy,
  type CompiledRule,
  imageVerifyGaps,
  isObject,
  type PolicyProblem,
  problem,
} from "../../engine/index.js";

export function unservedParts(policy: CompiledPolicy): PolicyProblem[] {
  const kind = policy.unsupportedKind;
  if (kind !== undefined)
    return [
      problem(
        "kind",
        `${kind} ${policy.name}: Bylaw does not evaluate ${kind} yet; remove it until Bylaw runs this kind (matching requests would only get errors)`,
      ),
    ];
  const rules = policy.document.spec.rules ?? [];
  const out: PolicyProblem[] = [];
  for (const compiled of policy.rules) {
    if (compiled.autogenOf !== undefined) continue;
    const index = rules.findIndex((r) => r.name === compiled.name);
    const at = index === -1 ? "spec" : `spec.rules[${index}]`;
    for (const gap of unservedRule(compiled))
      out.push(problem(`${at}${gap.field}`, `rule ${compiled.name}: ${gap.message}`));
  }
  return out;
}

/** What of one rule `serve` does not run, each with the field under the rule (`.generate`) and why. */
export function unservedRule(compiled: CompiledRule): { readonly field: string; readonly message: string }[] {
  const rule = compiled.rule;
  const out: { field: string; message: string }[] = [];
  if (isObject(rule.generate))
    out.push({
      field: ".generate",
      message:
        "Bylaw does not run generate rules in a cluster yet (it has no generate controller), so nothing would be generated",
    });
  if (isObject(rule.mutate) && Array.isArray(rule.mutate["targets"]) && rule.mutate["targets"].length > 0)
    out.push({
      field: ".mutate.targets",
      message:
        "Bylaw does not run mutate-existing rules (mutate.targets) in a cluster yet (it has no background controller), so no existing resource would be changed",
    });
  if (compiled.unsupported !== undefined) out.push({ field: "", message: compiled.unsupported });
  const gaps = imageVerifyGaps(rule);
  if (gaps !== undefined) out.push({ field: ".verifyImages", message: `Bylaw cannot verify images with ${gaps}` });
  return out;
}
