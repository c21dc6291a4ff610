/**
 * The names of the webhook configurations and webhooks Bylaw registers. By default they are Bylaw's
 * own (`bylaw-resource-validating-webhook-cfg`, `validate.bylaw.svc-fail`, …). With
 * `--kyverno-webhook-names` they are the ones Kyverno v1.19 gives the same webhooks (Kyverno's
 * `pkg/config/config.go` and `webhookNameAndPath` in `pkg/controllers/webhook`), so a cluster moving
 * from Kyverno keeps its tooling, alerts and scripts:
 *
 *   kyverno-resource-validating-webhook-cfg   validate.kyverno.svc-fail, validate.kyverno.svc-ignore,
 *                                             validate.kyverno.svc-fail-finegrained-<ns>-<name>,
 *                                             vpol.validate.kyverno.svc-fail-finegrained-<name>, …
 *   kyverno-resource-mutating-webhook-cfg     mutate.kyverno.svc-fail, mutate.kyverno.svc-ignore, …
 *   kyverno-policy-validating-webhook-cfg     validate-policy.kyverno.svc
 *
 * Kyverno has no name for the webhooks Bylaw adds of its own, so they keep Bylaw's in either mode:
 * a further timeout's (`validate.bylaw.svc-fail-timeout-20s`: Kyverno gives a webhook the largest
 * timeout of its policies instead) and a namespace's (`validate.bylaw.svc-fail-ns-<ns>`, with
 * `--register`). A namespaced policies.kyverno.io policy's fine-grained webhook is named as Kyverno
 * names it, without its namespace (`nvpol.validate.kyverno.svc-fail-finegrained-<name>`); two that
 * would share a name get a hash (kube-names.ts).
 */
import type { WebhookGroup } from "../admission/types.js";
import { groupWebhookName, type WebhookKind } from "../admission/webhook-groups.js";
import { webhookName } from "../admission/kube-names.js";
import type { NameScheme } from "../../controllers/registration/types.js";

interface ConfigurationNames {
  readonly validating: string;
  readonly mutating: string;
  readonly policyValidating: string;
}

/** The three configurations' names under a scheme. */
export function configurationNames(scheme: NameScheme = "bylaw"): ConfigurationNames {
  return {
    validating: `${scheme}-resource-validating-webhook-cfg`,
    mutating: `${scheme}-resource-mutating-webhook-cfg`,
    policyValidating: `${scheme}-policy-validating-webhook-cfg`,
  };
}

/** The policy webhook's name: `validate-policy.bylaw.svc`, or Kyverno's `validate-policy.kyverno.svc`. */
export function policyWebhookName(scheme: NameScheme = "bylaw"): string {
  return `validate-policy.${scheme}.svc`;
}

/** A resource webhook's name under a scheme; the webhooks Kyverno has no name for keep Bylaw's. */
export function resourceWebhookName(kind: WebhookKind, group: WebhookGroup, scheme: NameScheme = "bylaw"): string {
  if (scheme === "bylaw") return groupWebhookName(kind, group);
  if (group.policy !== undefined) {
    const prefix = group.prefix !== undefined ? `${group.prefix}.validate` : kind;
    // Kyverno leaves a policies.kyverno.io policy's namespace out of its name; a kyverno.io Policy's is in it.
    const key = group.prefix !== undefined ? group.policy.slice(group.policy.indexOf("/") + 1) : group.policy;
    return webhookName(`${prefix}.kyverno.svc-${group.mode}-finegrained-${key.replace("/", "-")}`, group.policy);
  }
  if (group.isDefault && group.namespace === undefined) return `${kind}.kyverno.svc-${group.mode}`;
  return groupWebhookName(kind, group);
}
