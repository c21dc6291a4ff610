/**
 * The policy webhook's checks of a kyverno.io policy that need the API server (`--register`), as
 * Kyverno's policy webhook makes them: its kinds against discovery (kind-problems.ts), its generate
 * targets' scope (generate-scope.ts), and whether the background controller may write them
 * (generate-permissions.ts, SubjectAccessReviews) and list the existing triggers of its
 * `generateExisting` rules (existing-trigger-permissions.ts), and get and update what its
 * mutate-existing rules' targets name (mutate-target-permissions.ts). A kind discovery does not list yet (a CRD just
 * created) reads discovery again once before the policy is refused for it. The policies.kyverno.io
 * kinds have none of these rules and are not checked here.
 */
import type { CompiledPolicy, PolicyProblem } from "../../engine/index.js";
import { kindProblems } from "./kind-problems.js";
import { generateScopeProblems } from "./generate-scope.js";
import { generatePermissionProblems } from "./generate-permissions.js";
import { existingTriggerPermissionProblems } from "./existing-trigger-permissions.js";
import type { PermissionChecks } from "./background-access.js";
import { mutateTargetPermissionProblems } from "./mutate-target-permissions.js";

export interface ClusterPolicyChecks extends PermissionChecks {
  /** Reads discovery again. */
  readonly refresh: () => Promise<void>;
}

export async function clusterPolicyProblems(
  policy: CompiledPolicy,
  checks: ClusterPolicyChecks,
): Promise<PolicyProblem[]> {
  if (policy.language !== "kyverno") return [];
  let kinds = kindProblems(policy, checks.resolve);
  if (kinds.length > 0) {
    await checks.refresh();
    kinds = kindProblems(policy, checks.resolve);
  }
  if (kinds.length > 0) return kinds;
  const scope = generateScopeProblems(policy, checks.resolve);
  if (scope.length > 0) return scope;
  const [generate, existing, mutate] = await Promise.all([
    generatePermissionProblems(policy, checks),
    existingTriggerPermissionProblems(policy, checks),
    mutateTargetPermissionProblems(policy, checks),
  ]);
  return [...generate, ...existing, ...mutate];
}
