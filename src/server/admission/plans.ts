/**
 * Which policies each webhook evaluates, and in which class, worked out once per policy snapshot
 * (and webhook mode) instead of once per review: with hundreds of policies the classification
 * costs more than a cheap review. A snapshot is immutable, so the plan is too.
 */
import {
  type CompiledPolicy,
  hasGenerateRules,
  hasImageVerifyRules,
  hasMutateRules,
  hasValidateRules,
  indexPolicies,
  type CandidateIndex,
  isMutateExisting,
  mutateExistingRuleNames,
  mutationPassOf,
  type PreparedRequest,
} from "../../engine/index.js";
import type { PolicySnapshot } from "../types.js";
import type { AdmissionDeps } from "./deps.js";
import { appliesAtAdmission, emitsWarning, hasEnforceAction, servedBy } from "./policy-traits.js";
import type { WebhookSelector } from "./types.js";

export interface ValidatePlan {
  /** Every policy the validate webhook serves (for the subresource kind lookup). */
  readonly policies: readonly CompiledPolicy[];
  /** Policies with any Enforce action: evaluated first, they can block. */
  readonly enforceClass: readonly CompiledPolicy[];
  /** Audit-only policies with emitWarning: evaluated before answering, for warnings. */
  readonly auditWarn: readonly CompiledPolicy[];
  /** The other Audit-only policies: evaluated last, for reports. */
  readonly auditOnly: readonly CompiledPolicy[];
  /** Each class's candidate index (built with the plan, once per snapshot): which of its policies a review can reach. */
  readonly indexes: {
    readonly enforceClass: CandidateIndex;
    readonly auditWarn: CandidateIndex;
    readonly auditOnly: CandidateIndex;
  };
}

/** Policies walked in order for one review, with their candidate index (built with the plan, once per snapshot). */
interface IndexedPlan {
  readonly policies: readonly CompiledPolicy[];
  readonly index: CandidateIndex;
}

/** Policies with standard mutate rules, without their mutate-existing rules (the background's). */
type MutatePlan = IndexedPlan;

/** A plan cache key: "all", a bare mode, or `fail/20` (a group; `*` marks the default one, `+` one that leaves out fine-grained policies, `/finegrained/<policy>` a fine-grained one, `/ns/<namespace>` a namespace's). */
type Mode = string;

function keyOf(webhook: WebhookSelector | undefined): Mode {
  if (webhook === undefined) return "all";
  if (typeof webhook === "string") return webhook;
  return `${webhook.mode}/${webhook.timeoutSeconds}${webhook.isDefault ? "*" : ""}${webhook.fineGrained === true ? "+" : ""}${webhook.policy !== undefined ? `/finegrained/${webhook.policy}` : ""}${webhook.namespace !== undefined ? `/ns/${webhook.namespace}` : ""}`;
}

/** A cache of plans per snapshot; one per server (kept in AdmissionDeps.plans). */
export class AdmissionPlans {
  private readonly validate = new WeakMap<PolicySnapshot, Map<Mode, ValidatePlan>>();
  private readonly mutate = new WeakMap<PolicySnapshot, Map<Mode, MutatePlan>>();
  private readonly generate = new WeakMap<PolicySnapshot, Map<Mode, IndexedPlan>>();
  private readonly mutateExisting = new WeakMap<PolicySnapshot, Map<Mode, IndexedPlan>>();

  validatePlan(snapshot: PolicySnapshot, webhook: WebhookSelector | undefined): ValidatePlan {
    return cached(this.validate, snapshot, keyOf(webhook), () => buildValidatePlan(snapshot.policies, webhook));
  }

  mutatePlan(snapshot: PolicySnapshot, webhook: WebhookSelector | undefined): MutatePlan {
    return cached(this.mutate, snapshot, keyOf(webhook), () => buildMutatePlan(snapshot.policies, webhook));
  }

  generatePlan(snapshot: PolicySnapshot, webhook: WebhookSelector | undefined): IndexedPlan {
    return cached(this.generate, snapshot, keyOf(webhook), () => buildGeneratePlan(snapshot.policies, webhook));
  }

  mutateExistingPlan(snapshot: PolicySnapshot, webhook: WebhookSelector | undefined): IndexedPlan {
    return cached(this.mutateExisting, snapshot, keyOf(webhook), () =>
      buildMutateExistingPlan(snapshot.policies, webhook),
    );
  }
}

/** The policies with generate rules (and GeneratingPolicies) a webhook walks after an allowed review (generate-work.ts). */
export function generatePlanOf(
  deps: Pick<AdmissionDeps, "policies" | "plans">,
  webhook: WebhookSelector | undefined,
): IndexedPlan {
  const snapshot = deps.policies();
  return deps.plans !== undefined
    ? deps.plans.generatePlan(snapshot, webhook)
    : buildGeneratePlan(snapshot.policies, webhook);
}

/** The policies with mutate-existing rules a webhook walks after an allowed review (mutate-existing-work.ts). */
export function mutateExistingPlanOf(
  deps: Pick<AdmissionDeps, "policies" | "plans">,
  webhook: WebhookSelector | undefined,
): IndexedPlan {
  const snapshot = deps.policies();
  return deps.plans !== undefined
    ? deps.plans.mutateExistingPlan(snapshot, webhook)
    : buildMutateExistingPlan(snapshot.policies, webhook);
}

/**
 * The plan's policies, in order, that may have a rule matching `prepared` (the candidate index): a
 * policy left out would have given no rule results, in a namespace the cluster facts do not know
 * too (a policy the index rules out needs none of its labels: engine `namespaceLabelsNeeded`). Every
 * policy when the index is off (`indexCandidates: false`) or when the request cannot be read for it.
 */
export function reachable(
  plan: IndexedPlan,
  prepared: () => PreparedRequest,
  o: { readonly indexCandidates?: boolean | undefined },
): readonly CompiledPolicy[] {
  if (o.indexCandidates === false || plan.policies.length === 0) return plan.policies;
  let mask: Uint8Array;
  try {
    mask = plan.index.candidates(prepared());
  } catch {
    return plan.policies;
  }
  return plan.policies.filter((_, i) => mask[i] === 1);
}

export function validatePlanOf(deps: AdmissionDeps, webhook: WebhookSelector | undefined): ValidatePlan {
  const snapshot = deps.policies();
  return deps.plans !== undefined
    ? deps.plans.validatePlan(snapshot, webhook)
    : buildValidatePlan(snapshot.policies, webhook);
}

export function mutatePlanOf(deps: AdmissionDeps, webhook: WebhookSelector | undefined): MutatePlan {
  const snapshot = deps.policies();
  return deps.plans !== undefined
    ? deps.plans.mutatePlan(snapshot, webhook)
    : buildMutatePlan(snapshot.policies, webhook);
}

function cached<P>(
  store: WeakMap<PolicySnapshot, Map<Mode, P>>,
  snapshot: PolicySnapshot,
  mode: Mode,
  build: () => P,
): P {
  let byMode = store.get(snapshot);
  if (byMode === undefined) {
    byMode = new Map<Mode, P>();
    store.set(snapshot, byMode);
  }
  let plan = byMode.get(mode);
  if (plan === undefined) {
    plan = build();
    byMode.set(mode, plan);
  }
  return plan;
}

function buildValidatePlan(all: readonly CompiledPolicy[], webhook: WebhookSelector | undefined): ValidatePlan {
  const policies = all.filter((p) => hasValidateRules(p) && appliesAtAdmission(p) && servedBy(p, webhook));
  const enforceClass: CompiledPolicy[] = [];
  const auditWarn: CompiledPolicy[] = [];
  const auditOnly: CompiledPolicy[] = [];
  for (const p of policies) (hasEnforceAction(p) ? enforceClass : emitsWarning(p) ? auditWarn : auditOnly).push(p);
  const indexes = {
    enforceClass: indexPolicies(enforceClass),
    auditWarn: indexPolicies(auditWarn),
    auditOnly: indexPolicies(auditOnly),
  };
  return { policies, enforceClass, auditWarn, auditOnly, indexes };
}

/**
 * The mutating webhook's policies in Kyverno's two passes: every policy's mutate rules (mutate-existing
 * rules left out: they are background work), then every policy's verifyImages rules (signatures,
 * digests, the annotation), as Kyverno's webhook runs HandleMutation and then image verification on
 * the mutated request. A kyverno.io policy with both takes part in each pass with that pass's rules
 * (engine `mutationPassOf`); a MutatingPolicy or MutatingAdmissionPolicy mutates in the first, an
 * ImageValidatingPolicy (its digests) in the second.
 */
function buildMutatePlan(all: readonly CompiledPolicy[], webhook: WebhookSelector | undefined): MutatePlan {
  const mutating: CompiledPolicy[] = [];
  const verifying: CompiledPolicy[] = [];
  for (const policy of all) {
    if (!appliesAtAdmission(policy) || !servedBy(policy, webhook)) continue;
    if (policy.language !== "kyverno") {
      if (hasMutateRules(policy)) mutating.push(policy);
      else if (hasImageVerifyRules(policy)) verifying.push(policy);
      continue;
    }
    // (kyverno.io rules are narrowed here: mutate-existing is theirs; another kind mutates through its own body.)
    const mutate = mutationPassOf(policy, "mutate");
    const standard = mutate.rules.filter((r) => !isMutateExisting(r));
    if (standard.length > 0)
      mutating.push(standard.length === mutate.rules.length ? mutate : { ...mutate, rules: standard });
    const verify = mutationPassOf(policy, "verifyImages");
    if (verify.rules.length > 0) verifying.push(verify);
  }
  const policies = [...mutating, ...verifying];
  // Each policy matches the object the ones before it patched (a name could be set on the way).
  return { policies, index: indexPolicies(policies, { patched: true }) };
}

function buildGeneratePlan(all: readonly CompiledPolicy[], webhook: WebhookSelector | undefined): IndexedPlan {
  const policies = all.filter((p) => hasGenerateRules(p) && servedBy(p, webhook));
  return { policies, index: indexPolicies(policies) };
}

function buildMutateExistingPlan(all: readonly CompiledPolicy[], webhook: WebhookSelector | undefined): IndexedPlan {
  const policies = all.filter(
    (p) => appliesAtAdmission(p) && servedBy(p, webhook) && mutateExistingRuleNames(p).length > 0,
  );
  return { policies, index: indexPolicies(policies) };
}
