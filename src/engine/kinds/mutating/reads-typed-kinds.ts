/**
 * Whether a policy's evaluation converts objects with EnginePorts.typedKinds: a MutatingPolicy's
 * ApplyConfiguration is typed before it merges (mutate/typed), so a caller that loads types on
 * demand (`apply --cluster`, the cluster's OpenAPI v3) loads them only for such a policy.
 */
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import { MUTATING_POLICY, NAMESPACED_MUTATING_POLICY } from "./kinds.js";

export function readsTypedKinds(policy: Pick<CompiledPolicy, "origin">): boolean {
  return policy.origin.kind === MUTATING_POLICY || policy.origin.kind === NAMESPACED_MUTATING_POLICY;
}
