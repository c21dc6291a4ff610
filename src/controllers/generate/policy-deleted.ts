/**
 * A deleted policy's synchronized downstream (Kyverno: deleting a policy deletes what its
 * `synchronize: true` generate rules made, unless `orphanDownstreamOnPolicyDelete: true`). The loop
 * remembers the policies it saw; one gone from the set is confirmed gone with the API server (a
 * policy that stops compiling leaves the set but is not deleted) before anything is deleted. A
 * GeneratingPolicy's downstream goes with it when it synchronizes and
 * `evaluation.orphanDownstreamOnPolicyDelete` is not enabled; its kinds are those it would generate
 * for the triggers that exist now (generating-existing.ts).
 */
import { kyvernoCompiledRules, type CompiledPolicy, isObject, type Resource } from "../../engine/index.js";
import { KubeError, type KubeClient } from "../../kube/kube-client.js";
import type { KindPaths } from "./kind-paths.js";
import { writtenKinds } from "./run-update-request.js";
import { generatingDownstreamKinds } from "./generating-existing.js";
import { CEL_GROUP, CEL_STORAGE_VERSION, celKindInfo } from "../../kube/cel-policy-kinds.js";

/**
 * Whether a listed object (labelled with the policy's name) is this policy's and this rule's: a
 * label absent reads as "" (a GeneratingPolicy's downstream has no rule name, and a cluster-wide
 * one's no policy namespace, as Kyverno labels them).
 */
function madeBy(item: Resource, policy: CompiledPolicy, rule: string): boolean {
  const meta = isObject(item["metadata"]) ? item["metadata"] : {};
  const labels = isObject(meta["labels"]) ? meta["labels"] : {};
  const label = (key: string): string => {
    const v = labels[`generate.kyverno.io/${key}`];
    return typeof v === "string" ? v : "";
  };
  return label("policy-namespace") === policy.namespace && label("rule-name") === rule.slice(0, 63);
}

/** The rules whose copies go with the policy: synchronized and not orphaned. */
export function rulesDeletedWithPolicy(policy: CompiledPolicy): string[] {
  if (policy.language === "generating")
    return policy.generating.synchronize && !policy.generating.orphanDownstreamOnPolicyDelete ? [""] : [];
  return kyvernoCompiledRules(policy)
    .filter((r) => {
      const g = r.rule.generate;
      return isObject(g) && g["synchronize"] === true && g["orphanDownstreamOnPolicyDelete"] !== true;
    })
    .map((r) => r.name);
}

function policyPath(policy: CompiledPolicy): string {
  const name = encodeURIComponent(policy.name);
  const cel = celKindInfo(policy.kind);
  if (cel !== undefined) {
    const base = `/apis/${CEL_GROUP}/${CEL_STORAGE_VERSION}`;
    return policy.namespace !== ""
      ? `${base}/namespaces/${encodeURIComponent(policy.namespace)}/${cel.gvr.resource}/${name}`
      : `${base}/${cel.gvr.resource}/${name}`;
  }
  return policy.namespace !== ""
    ? `/apis/kyverno.io/v1/namespaces/${encodeURIComponent(policy.namespace)}/policies/${name}`
    : `/apis/kyverno.io/v1/clusterpolicies/${name}`;
}

async function stillThere(client: KubeClient, policy: CompiledPolicy): Promise<boolean> {
  try {
    await client.getJson(policyPath(policy));
    return true;
  } catch (e) {
    if (e instanceof KubeError && e.status === 404) return false;
    throw e;
  }
}

/** Deletes the synchronized downstream of `policy` if it is really gone; answers how many objects were deleted. */
export async function deleteDownstreamOf(
  policy: CompiledPolicy,
  deps: { readonly client: KubeClient; readonly paths: KindPaths },
): Promise<number> {
  const rules = rulesDeletedWithPolicy(policy);
  if (rules.length === 0 || (await stillThere(deps.client, policy))) return 0;
  let deleted = 0;
  for (const rule of rules)
    for (const k of policy.language === "generating"
      ? await generatingDownstreamKinds(policy, deps)
      : writtenKinds(policy, [rule])) {
      const where = await deps.paths.resolve(k.apiVersion, k.kind);
      if (where === undefined) continue;
      const selector = `generate.kyverno.io/policy-name=${policy.name.slice(0, 63)}`;
      const list = (await deps.client.getJson(
        `${where.collection("")}?labelSelector=${encodeURIComponent(selector)}`,
      )) as { items?: Resource[] };
      for (const item of (list.items ?? []).filter((i) => madeBy(i, policy, rule))) {
        const meta = isObject(item["metadata"]) ? item["metadata"] : {};
        const ns = typeof meta["namespace"] === "string" ? meta["namespace"] : "";
        const name = typeof meta["name"] === "string" ? meta["name"] : "";
        try {
          await deps.client.sendJson("DELETE", where.object(ns, name), { propagationPolicy: "Background" });
          deleted++;
        } catch (e) {
          if (!(e instanceof KubeError && e.status === 404)) throw e;
        }
      }
    }
  return deleted;
}
