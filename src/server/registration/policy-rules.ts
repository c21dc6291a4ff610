/**
 * What each policy needs on each webhook (webhook-rules.ts `addPolicyRules`), worked out once per
 * compiled policy and kept while discovery serves the same kinds. A policy set's configurations are
 * built again on every policy event (and for the policy webhook's check of each policy applied); an
 * unchanged policy keeps its compiled object across snapshots, so only the policies that changed are
 * worked out again, and the rest is a union of the sets kept here (issue 39: loading n policies
 * cost O(n²) kind resolutions). A set kept here is never changed: builders merge it into their own.
 */
import type { CompiledPolicy } from "../../engine/index.js";
import { addPolicyRules, type KindResolver, RuleSet, type WebhookKind } from "./webhook-rules.js";

interface Kept {
  validate?: RuleSet;
  mutate?: RuleSet;
}

export class PolicyRules {
  private kept = new WeakMap<CompiledPolicy, Kept>();
  private version: number | undefined;

  /**
   * `resolve` finds the kinds the built-in table does not know (discovery); `version` changes
   * whenever its answers may have (discovery read again and changed): what was kept is then forgotten.
   */
  constructor(
    private readonly resolve?: KindResolver,
    private readonly resolverVersion: () => number = () => 0,
  ) {}

  /** What `policy` needs on `webhook` (shared: merge it, never change it). */
  of(policy: CompiledPolicy, webhook: WebhookKind): RuleSet {
    const version = this.resolverVersion();
    if (version !== this.version) {
      this.kept = new WeakMap();
      this.version = version;
    }
    let kept = this.kept.get(policy);
    if (kept === undefined) {
      kept = {};
      this.kept.set(policy, kept);
    }
    let rules = kept[webhook];
    if (rules === undefined) {
      rules = new RuleSet();
      addPolicyRules(rules, policy, webhook, this.resolve);
      kept[webhook] = rules;
    }
    return rules;
  }
}
