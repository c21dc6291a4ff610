/**
 * Why the API server would refuse the webhook a policies.kyverno.io policy gets of its own with
 * `--register` (build-configurations.ts, cel-webhook-traits.ts). The API server checks every webhook
 * of a configuration at once, so one refused webhook would leave every other policy unregistered
 * too; Kyverno writes these fields as the policy gives them and does not check them. Bylaw refuses
 * the one policy instead, at load, naming the field:
 *
 * - `spec.matchConstraints.namespaceSelector` and `objectSelector` must be label selectors Kubernetes
 *   accepts (apimachinery `ValidateLabelSelector`: operators, values, label keys and values);
 * - the webhook may carry at most 64 matchConditions (admissionregistration validation), counting
 *   the copies autogen adds for pod controllers: a Pod policy's N conditions become N for the Pod
 *   and N more for each controller config (Kyverno `pkg/cel/autogen` `CreateMatchConditions`), and
 *   the conditions Bylaw adds to every webhook (build-configurations.ts: one, two for a namespaced
 *   policy); a kyverno.io policy's `webhookConfiguration.matchConditions` likewise.
 *
 * Empty when the policy has no webhook of its own, or when it registers. What only the API server
 * can tell (its CEL compiler and cost limit) is asked of it: registration-check.ts.
 */
import {
  isObject,
  labelSelectorProblems,
  problem,
  type CompiledPolicy,
  type PolicyProblem,
  webhookMatchConditions,
} from "../../engine/index.js";
import { celHasOwnWebhook, celWebhookTraits } from "../admission/cel-webhook-traits.js";
import { celSpecOf } from "../policy-source/cel-policy-compile.js";
import type { TimeoutGroups } from "../admission/webhook-groups.js";

/** The API server's limit on a webhook's matchConditions. */
const MAX_WEBHOOK_MATCH_CONDITIONS = 64;

export function ownWebhookProblems(policy: CompiledPolicy, groups: TimeoutGroups): PolicyProblem[] {
  if (groups.fineGrained !== true) return [];
  // Bylaw adds its own conditions (its objects' deletion; a namespaced policy's controller deletes).
  const added = policy.namespace !== "" ? 2 : 1;
  if (!celHasOwnWebhook(policy)) return legacyProblems(policy, added);
  const traits = celWebhookTraits(policy);
  if (traits === undefined) return [];
  const out: PolicyProblem[] = [];
  const spec = celSpecOf(policy) ?? {};
  const mc = isObject(spec["matchConstraints"]) ? spec["matchConstraints"] : {};
  out.push(
    ...labelSelectorProblems(mc["namespaceSelector"], "spec.matchConstraints.namespaceSelector"),
    ...labelSelectorProblems(mc["objectSelector"], "spec.matchConstraints.objectSelector"),
  );
  const count = traits.matchConditions.length + added;
  if (count > MAX_WEBHOOK_MATCH_CONDITIONS) {
    out.push(
      problem(
        "spec.matchConditions",
        `its webhook would carry ${count} matchConditions with the copies autogen adds for pod controllers and Bylaw's own ${added}, and the API server accepts at most ${MAX_WEBHOOK_MATCH_CONDITIONS} (it would refuse the whole webhook configuration, every other policy's registration with it): use fewer conditions, or limit autogen (spec.autogen.podControllers.controllers)`,
      ),
    );
  }
  return out.map((p) => ({ ...p, message: `Bylaw's webhook for this policy: ${p.message}` }));
}

/** A kyverno.io policy with `webhookConfiguration.matchConditions`: its own webhook carries them and Bylaw's. */
function legacyProblems(policy: CompiledPolicy, added: number): PolicyProblem[] {
  const own = webhookMatchConditions(policy).length;
  if (own === 0 || own + added <= MAX_WEBHOOK_MATCH_CONDITIONS) return [];
  return [
    problem(
      "spec.webhookConfiguration.matchConditions",
      `Bylaw's webhook for this policy: it would carry ${own + added} matchConditions with Bylaw's own ${added}, and the API server accepts at most ${MAX_WEBHOOK_MATCH_CONDITIONS} (it would refuse the whole webhook configuration): use at most ${MAX_WEBHOOK_MATCH_CONDITIONS - added}`,
    ),
  ];
}
