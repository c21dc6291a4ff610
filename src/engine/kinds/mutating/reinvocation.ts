/**
 * A MutatingPolicy's `spec.reinvocationPolicy` (policies.kyverno.io, as Kubernetes'
 * MutatingAdmissionPolicy): `IfNeeded` asks that the policy run again in the same admission when a
 * mutation after it changed the object; `Never` (the default) runs it once. Any other kind runs once.
 */
import type { CompiledPolicy } from "../../policy/compiled-policy.js";

export function reinvokedIfNeeded(policy: CompiledPolicy): boolean {
  return policy.language === "mutating" && policy.mutating.some((b) => b.reinvokeIfNeeded);
}
