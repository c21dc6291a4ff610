/**
 * Features of a kyverno.io ClusterPolicy/Policy that Bylaw does not run yet. A rule using one is
 * never passed or ignored: it is decided here, once, when the policy compiles, and every matched
 * resource gets an `error` result naming the feature (pipeline/unsupported-result.ts).
 *
 * The list was drawn by walking the v1.19 CRD's rule schema (config/crds/kyverno) against what the
 * engine reads. Fields Kyverno itself ignores (`validate.assert`, `spec.schemaValidation`), or that
 * only a background controller or the webhook registration act on (`generateExisting`,
 * `synchronize`, `mutateExistingOnPolicyUpdate`, `skipBackgroundRequests`, `useServerSideApply`,
 * `webhookConfiguration.timeoutSeconds`), are not listed: they change nothing in what a rule
 * answers for one request. `webhookConfiguration.matchConditions` is run before the rules
 * (policy/webhook-match-conditions.ts, pipeline/policy-match-conditions.ts). `imageRegistry` context entries are decided when the entry loads
 * (context/load-entries.ts): a values file may supply the variable instead. verifyImages rules run
 * (engine/verify-images); the fields of theirs Bylaw cannot run are named per entry and attestor
 * when an image reaches them (verify-images/image-verification.ts, attestors.ts).
 */
import type { Rule } from "../api/policy.js";

interface Feature {
  readonly used: (rule: Rule) => boolean;
  readonly name: string;
}

const RULE_FEATURES: readonly Feature[] = [
  {
    used: (r) => present(r.celPreconditions) && !present(r.validate?.cel),
    name: "celPreconditions outside validate.cel (Kyverno allows them only with validate.cel)",
  },
];

/**
 * What the rule needs that Bylaw does not run, as one message ("rule r: validate.manifests (…) is not
 * supported by Bylaw yet"), or undefined when the rule can be evaluated.
 */
export function unsupportedFeatures(rule: Rule): string | undefined {
  const names = RULE_FEATURES.filter((f) => f.used(rule)).map((f) => f.name);
  if (names.length === 0) return undefined;
  return `rule ${rule.name}: ${names.join(", ")} ${names.length === 1 ? "is" : "are"} not supported by Bylaw yet; the rule was not evaluated`;
}

function present(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  return true;
}
