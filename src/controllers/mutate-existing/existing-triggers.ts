/**
 * `mutate.mutateExistingOnPolicyUpdate` (and the deprecated `spec.mutateExistingOnPolicyUpdate` as
 * its fallback, as in Kyverno): when a policy appears or its spec changes, each existing object that
 * one of those rules matches becomes a mutate UpdateRequest, so the rule's targets are patched as if
 * the trigger had just been created. The trigger objects are listed by the rules' match kinds (a
 * namespaced Policy's in its namespace only) and matched by the engine in background mode.
 */
import {
  type CompiledPolicy,
  err,
  type ExistingResources,
  isMutateExisting,
  isObject,
  type JsonObject,
  type JsonValue,
  type Resource,
} from "../../engine/index.js";
import { type ExistingDeps, existingTriggers } from "../generate/existing-triggers.js";
import { policyKeyOf } from "../generate/run-update-request.js";
import type { GenerateWorkItem } from "../generate/update-request.js";

const NOT_READ: ExistingResources = {
  get: () => err("pending", "not read while finding existing triggers"),
  list: () => err("pending", "not read while finding existing triggers"),
};

/** The mutate-existing rules of `policy` that run when the policy appears or changes. */
export function mutateOnPolicyUpdateRules(policy: CompiledPolicy): string[] {
  const fallback = (policy.document.spec as JsonObject)["mutateExistingOnPolicyUpdate"] === true;
  return policy.rules
    .filter((r) => {
      if (!isMutateExisting(r) || r.autogenOf !== undefined) return false;
      const own = r.rule.mutate?.["mutateExistingOnPolicyUpdate"];
      return own === true || (own === undefined && fallback);
    })
    .map((r) => r.name);
}

/** One mutate work item per existing trigger and rule of `policy` that runs on policy update. */
export async function mutateExistingWork(policy: CompiledPolicy, deps: ExistingDeps): Promise<GenerateWorkItem[]> {
  const rules = mutateOnPolicyUpdateRules(policy);
  if (rules.length === 0) return [];
  const out: GenerateWorkItem[] = [];
  for await (const { engine, object, request } of existingTriggers(policy, rules, deps)) {
    const response = engine.mutate(policy, request, NOT_READ);
    const matched = new Set(response.rules.filter((r) => r.status !== "skip").map((r) => r.rule));
    for (const rule of rules) if (matched.has(rule)) out.push(workFor(policy, object, rule));
  }
  return out;
}

function workFor(policy: CompiledPolicy, object: Resource, rule: string): GenerateWorkItem {
  const meta = isObject(object["metadata"]) ? object["metadata"] : {};
  const text = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
  return {
    requestType: "mutate",
    policy: policyKeyOf(policy),
    rules: [{ rule, synchronize: false, deleteDownstream: false }],
    trigger: {
      apiVersion: text(object["apiVersion"]),
      kind: text(object["kind"]),
      namespace: text(meta["namespace"]),
      name: text(meta["name"]),
      uid: text(meta["uid"]),
    },
    operation: "CREATE",
    userInfo: {},
    admissionRequest: {},
  };
}
