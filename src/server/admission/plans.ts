/**
 * Which policies each webhook evaluates, and in which class, worked out once per policy snapshot
 * (and webhook mode) instead of once per review: with hundreds of policies the classification
 * costs more than a cheap review. A snapshot is immutable, so the plan is too.
 */
import { hasValidateRules, type CompiledPolicy } from "../../engine/policy/compiled-policy.js";
import { isMutateExisting } from "../../engine/pipeline/mutate-policy.js";
import type { AdmissionDeps, PolicySnapshot } from "../types.js";
import { appliesAtAdmission, emitsWarning, hasEnforceAction, servedBy } from "./policy-traits.js";
import type { WebhookMode } from "./types.js";

export interface ValidatePlan {
  /** Every policy the validate webhook serves (for the subresource kind lookup). */
  readonly policies: readonly CompiledPolicy[];
  /** Policies with any Enforce action: evaluated first, they can block. */
  readonly enforceClass: readonly CompiledPolicy[];
  /** Audit-only policies with emitWarning: evaluated before answering, for warnings. */
  readonly auditWarn: readonly CompiledPolicy[];
  /** The other Audit-only policies: evaluated last, for reports. */
  readonly auditOnly: readonly CompiledPolicy[];
}

/** Policies with standard mutate rules, without their mutate-existing rules (the background's). */
export interface MutatePlan {
  readonly policies: readonly CompiledPolicy[];
}

type Mode = WebhookMode | "all";

/** A cache of plans per snapshot; one per server (kept in AdmissionDeps.plans). */
export class AdmissionPlans {
  private readonly validate = new WeakMap<PolicySnapshot, Map<Mode, ValidatePlan>>();
  private readonly mutate = new WeakMap<PolicySnapshot, Map<Mode, MutatePlan>>();

  validatePlan(snapshot: PolicySnapshot, webhook: WebhookMode | undefined): ValidatePlan {
    return cached(this.validate, snapshot, webhook ?? "all", () => buildValidatePlan(snapshot.policies, webhook));
  }

  mutatePlan(snapshot: PolicySnapshot, webhook: WebhookMode | undefined): MutatePlan {
    return cached(this.mutate, snapshot, webhook ?? "all", () => buildMutatePlan(snapshot.policies, webhook));
  }
}

export function validatePlanOf(deps: AdmissionDeps, webhook: WebhookMode | undefined): ValidatePlan {
  const snapshot = deps.policies();
  return deps.plans !== undefined ? deps.plans.validatePlan(snapshot, webhook) : buildValidatePlan(snapshot.policies, webhook);
}

export function mutatePlanOf(deps: AdmissionDeps, webhook: WebhookMode | undefined): MutatePlan {
  const snapshot = deps.policies();
  return deps.plans !== undefined ? deps.plans.mutatePlan(snapshot, webhook) : buildMutatePlan(snapshot.policies, webhook);
}

function cached<P>(store: WeakMap<PolicySnapshot, Map<Mode, P>>, snapshot: PolicySnapshot, mode: Mode, build: () => P): P {
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

function buildValidatePlan(all: readonly CompiledPolicy[], webhook: WebhookMode | undefined): ValidatePlan {
  const policies = all.filter((p) => hasValidateRules(p) && appliesAtAdmission(p) && servedBy(p, webhook));
  const enforceClass: CompiledPolicy[] = [];
  const auditWarn: CompiledPolicy[] = [];
  const auditOnly: CompiledPolicy[] = [];
  for (const p of policies) (hasEnforceAction(p) ? enforceClass : emitsWarning(p) ? auditWarn : auditOnly).push(p);
  return { policies, enforceClass, auditWarn, auditOnly };
}

function buildMutatePlan(all: readonly CompiledPolicy[], webhook: WebhookMode | undefined): MutatePlan {
  const policies: CompiledPolicy[] = [];
  for (const policy of all) {
    if (!appliesAtAdmission(policy) || !servedBy(policy, webhook)) continue;
    const standard = policy.rules.filter((r) => r.rule.mutate !== undefined && !isMutateExisting(r));
    if (standard.length === 0) continue;
    const hasExisting = policy.rules.some((r) => r.rule.mutate !== undefined && isMutateExisting(r));
    policies.push(hasExisting ? { ...policy, rules: policy.rules.filter((r) => !(r.rule.mutate !== undefined && isMutateExisting(r))) } : policy);
  }
  return { policies };
}
