/**
 * A synchronized rule's clone source changed (the webhook's `sourceChanged` work): the triggers to
 * run again are those of the rule's copies, found by Kyverno's labels on them (policy and rule name;
 * the trigger's group, version, kind, namespace and uid). Each becomes its own work item.
 */
import { isObject, type Resource } from "../../engine/index.js";
import type { KubeClient } from "../../kube/kube-client.js";
import type { KindPaths } from "./kind-paths.js";
import type { GenerateWorkItem } from "./update-request.js";

const LABEL = "generate.kyverno.io/";

function labelsOf(r: Resource): Record<string, string> {
  const meta = isObject(r["metadata"]) ? r["metadata"] : {};
  const labels = isObject(meta["labels"]) ? meta["labels"] : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  return out;
}

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
    const l = labelsOf(copy);
    const uid = l[`${LABEL}trigger-uid`] ?? "";
    if (uid === "" || byUid.has(uid)) continue;
    const group = l[`${LABEL}trigger-group`] ?? "";
    const version = l[`${LABEL}trigger-version`] ?? "";
    byUid.set(uid, {
      policy: work.policy,
      rules: work.rules,
      trigger: {
        apiVersion: group === "" ? version : `${group}/${version}`,
        kind: l[`${LABEL}trigger-kind`] ?? "",
        namespace: l[`${LABEL}trigger-namespace`] ?? "",
        name: "",
        uid,
      },
      operation: "UPDATE",
      userInfo: work.userInfo,
      admissionRequest: {},
    });
  }
  return [...byUid.values()];
}
