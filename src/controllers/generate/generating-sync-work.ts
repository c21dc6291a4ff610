/**
 * The work a synchronized GeneratingPolicy's watches bring (generating-sync.ts holds the watches):
 * - a downstream object (Kyverno's generate.kyverno.io labels naming the policy) changed or deleted
 *   by someone else: its trigger is run again, so the drift is reverted or the copy comes back;
 * - an object one of its generate expressions read (`resource.Get`, a clone source) changed: each
 *   trigger with a copy is run again, so the change reaches every copy.
 * Pure: the labels say which policy and trigger; the policies say whether it synchronizes.
 */
import { type CompiledPolicy, isObject, type Resource } from "../../engine/index.js";
import type { GenerateWorkItem, ResourceSpec } from "./update-request.js";

const LABEL = "generate.kyverno.io/";

export function labelsOf(r: Resource): Record<string, string> {
  const meta = isObject(r["metadata"]) ? r["metadata"] : {};
  const labels = isObject(meta["labels"]) ? meta["labels"] : {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (typeof v === "string") out[k] = v;
  return out;
}

/** Kyverno's policy key (`name`, or `namespace/name`) as a downstream object's labels name it; undefined without them. */
function labelledPolicyKey(labels: Readonly<Record<string, string>>): string | undefined {
  const name = labels[`${LABEL}policy-name`];
  if (name === undefined || name === "") return undefined;
  const ns = labels[`${LABEL}policy-namespace`] ?? "";
  return ns === "" ? name : `${ns}/${name}`;
}

/** The trigger a copy's labels name (found by uid: no name is recorded), or undefined without a uid. */
export function labelledTrigger(labels: Readonly<Record<string, string>>): ResourceSpec | undefined {
  const uid = labels[`${LABEL}trigger-uid`] ?? "";
  if (uid === "") return undefined;
  const group = labels[`${LABEL}trigger-group`] ?? "";
  const version = labels[`${LABEL}trigger-version`] ?? "";
  return {
    apiVersion: group === "" ? version : `${group}/${version}`,
    kind: labels[`${LABEL}trigger-kind`] ?? "",
    namespace: labels[`${LABEL}trigger-namespace`] ?? "",
    name: "",
    uid,
  };
}

const policyKeyOf = (p: CompiledPolicy): string => (p.namespace !== "" ? `${p.namespace}/${p.name}` : p.name);

/** The loaded GeneratingPolicy `key` when it synchronizes, else undefined. */
export function synchronizedGenerating(policies: readonly CompiledPolicy[], key: string): CompiledPolicy | undefined {
  const policy = policies.find((p) => policyKeyOf(p) === key);
  return policy?.language === "generating" && policy.generating.synchronize ? policy : undefined;
}

/**
 * The `cel-generate` work that runs the policy again for one trigger (the controller re-reads it by
 * uid), evaluated as generateExisting evaluates a trigger: as a CREATE of the object as it is now
 * (its matchConstraints commonly name CREATE only; an UPDATE would not match and would delete the copies).
 */
function rerun(policy: CompiledPolicy, trigger: ResourceSpec): GenerateWorkItem {
  return {
    requestType: "cel-generate",
    policy: policyKeyOf(policy),
    rules: [{ rule: policy.name, synchronize: true, deleteDownstream: false }],
    trigger,
    operation: "CREATE",
    userInfo: {},
    admissionRequest: {},
  };
}

/** A downstream object changed or deleted: its trigger run again, when a synchronized GeneratingPolicy made it. */
export function downstreamEventWork(
  object: Resource,
  policies: readonly CompiledPolicy[],
): GenerateWorkItem | undefined {
  const labels = labelsOf(object);
  const key = labelledPolicyKey(labels);
  const trigger = labelledTrigger(labels);
  const policy = key === undefined ? undefined : synchronizedGenerating(policies, key);
  return policy === undefined || trigger === undefined ? undefined : rerun(policy, trigger);
}

/** The policy's copies (its labelled downstream, as listed): one piece of work per trigger, each trigger once. */
export function copiesWork(policy: CompiledPolicy, copies: readonly Resource[]): GenerateWorkItem[] {
  const byUid = new Map<string, GenerateWorkItem>();
  for (const copy of copies) {
    const labels = labelsOf(copy);
    const trigger = labelledTrigger(labels);
    if (trigger === undefined || byUid.has(trigger.uid) || labelledPolicyKey(labels) !== policyKeyOf(policy)) continue;
    byUid.set(trigger.uid, rerun(policy, trigger));
  }
  return [...byUid.values()];
}
