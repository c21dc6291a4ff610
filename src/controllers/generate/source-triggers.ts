/**
 * A synchronized rule's clone source changed (the webhook's `sourceChanged` work): the triggers to
 * run again are those of the rule's copies, found by Kyverno's labels on them (policy and rule name;
 * the trigger's group, version, kind, namespace and uid). Each becomes its own work item.
 */
import type { Resource } from "../../engine/index.js";
import type { KubeClient } from "../../kube/kube-client.js";
import type { KindPaths } from "./kind-paths.js";
import type { GenerateWorkItem } from "./update-request.js";
import { labelledTrigger, labelsOf } from "./generating-sync-work.js";

const LABEL = "generate.kyverno.io/";

export async function sourceTriggers(
  work: GenerateWorkItem,
  deps: { readonly client: KubeClient; readonly paths: KindPaths },
): Promise<GenerateWorkItem[]> {
  const where = await deps.paths.resolve(work.trigger.apiVersion, work.trigger.kind);
  const rule = work.rules[0]?.rule;
  if (where === undefined || rule === undefined) return [];
  const name = work.policy.slice(work.policy.indexOf("/") + 1).slice(0, 63);
  const selector = `${LABEL}policy-name=${name},${LABEL}rule-name=${rule}`;
  const list = (await deps.client.getJson(`${where.collection("")}?labelSelector=${encodeURIComponent(selector)}`)) as {
    items?: Resource[];
  };
  const byUid = new Map<string, GenerateWorkItem>();
  for (const copy of list.items ?? []) {
    const trigger = labelledTrigger(labelsOf(copy));
    if (trigger === undefined || byUid.has(trigger.uid)) continue;
    byUid.set(trigger.uid, {
      policy: work.policy,
      rules: work.rules,
      trigger,
      operation: "UPDATE",
      userInfo: work.userInfo,
      admissionRequest: {},
    });
  }
  return [...byUid.values()];
}
