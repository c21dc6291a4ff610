/**
 * What a policy matches, at its head (ADR 0005 step 1): one matcher per language, whatever body holds
 * it, so that the webhook's registration (which requests a policy's webhook receives) asks the policy
 * and not its rules.
 * - `kyverno`: a kyverno.io policy's compiled rules (each its match/exclude, autogen copies included);
 * - `cel`: the compiled `matchConstraints` of a CEL kind, the policy's own first, then each autogen
 *   copy's (pod controllers); a ValidatingAdmissionPolicy's own (its bindings narrow it further);
 * - `none`: no matcher of its own: every request in the policy's scope (a kind Bylaw does not run,
 *   whose body answers every resource in its scope with an error, so that it is never silently skipped).
 */
import type { CompiledConstraints } from "../cel/validating-policy/match-constraints.js";
import type { CompiledPolicy, CompiledRule } from "../policy/compiled-policy.js";

export type PolicyMatch =
  | { readonly language: "kyverno"; readonly rules: readonly CompiledRule[] }
  | { readonly language: "cel"; readonly constraints: readonly CompiledConstraints[] }
  | { readonly language: "none" };

const NONE: PolicyMatch = { language: "none" };

/** Each compiled policy's head, made on first use: a compiled policy never changes, and some callers ask per review. */
const heads = new WeakMap<CompiledPolicy, PolicyMatch>();

export function policyMatchOf(policy: CompiledPolicy): PolicyMatch {
  let head = heads.get(policy);
  if (head === undefined) {
    head = headOf(policy);
    heads.set(policy, head);
  }
  return head;
}

function headOf(policy: CompiledPolicy): PolicyMatch {
  switch (policy.language) {
    case "kyverno":
      return { language: "kyverno", rules: policy.rules };
    case "mutating":
      return { language: "cel", constraints: policy.mutating.map((b) => b.constraints) };
    case "generating":
      return { language: "cel", constraints: [policy.generating.constraints] };
    case "image-validating":
      return {
        language: "cel",
        constraints: [policy.imageValidating, ...policy.imageValidating.autogen].map((b) => b.constraints),
      };
    case "deleting":
      return { language: "cel", constraints: [policy.deleting.constraints] };
    case "cel":
      return {
        language: "cel",
        constraints: policy.validating.programs.map((p) =>
          p.program.kind === "admission-policy" ? p.program.body.constraints : p.program.constraints,
        ),
      };
    case "unsupported":
      return NONE;
  }
}

/**
 * One name per matcher the policy's head holds: a kyverno.io rule's name, `""` per CEL
 * matchConstraints (Kyverno's results for the CEL kinds name no rule), none when the policy has no
 * matcher of its own. An evaluation worker checks its rebuild of a policy against them.
 */
export function policyMatchNames(policy: CompiledPolicy): string[] {
  const match = policyMatchOf(policy);
  switch (match.language) {
    case "kyverno":
      return match.rules.map((r) => r.name);
    case "cel":
      return match.constraints.map(() => "");
    case "none":
      return [];
  }
}
