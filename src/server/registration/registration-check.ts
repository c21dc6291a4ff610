/**
 * The policy webhook's last check of a policy being created or updated (`--register`): would the API
 * server accept the webhook configuration Bylaw writes with this policy in it? It is asked, with a
 * dry-run write (registrar.ts `check`), since only its own CEL compiler, cost estimator and size
 * limits settle it. A refusal denies the policy at `kubectl apply`, with the API server's reason; no
 * answer within `timeoutMs` admits it (registration still leaves it out if it is refused, and its
 * status says so): the policy webhook does not fail every policy write while the API server is slow.
 */
import { problem, type CompiledPolicy, type PolicyProblem } from "../../engine/index.js";
import { celKindOf } from "../admission/cel-webhook-traits.js";
import type { Registrar } from "../../controllers/registration/registrar.js";
import { policyIdOf } from "./build-configurations.js";
import { clusterPolicyProblems, type ClusterPolicyChecks } from "./cluster-policy-checks.js";

/**
 * The policy webhook's checks beyond compiling (`AdmissionDeps.vetPolicy`): `check`, the problems
 * `serve` refuses a policy for at load, then (with registration) what Kyverno's policy webhook
 * asks the API server (cluster-policy-checks.ts: kinds served, generate scope and permissions), then
 * whether the API server would accept its webhook.
 */
export function vetPolicy(
  check: (policy: CompiledPolicy) => readonly PolicyProblem[],
  registrar: Pick<Registrar, "check"> | undefined,
  cluster?: ClusterPolicyChecks,
): (policy: CompiledPolicy) => Promise<readonly PolicyProblem[]> {
  return async (policy) => {
    const local = check(policy);
    if (local.some((p) => p.severity === "error")) return local;
    const found = cluster === undefined ? [] : await withinDeadline(clusterPolicyProblems(policy, cluster), []);
    if (registrar === undefined || found.length > 0) return [...local, ...found];
    return [...local, ...(await registrationProblems(policy, registrar))];
  };
}

/**
 * What `work` answers within `timeoutMs`, else (or when it fails) `fallback`: a slow or failing API
 * server admits the policy rather than failing every policy write (Bylaw's controllers then report
 * what they may not do, at run time).
 */
async function withinDeadline<T>(work: Promise<T>, fallback: T, timeoutMs = 3000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), timeoutMs);
  });
  return Promise.race([work.catch(() => fallback), late]).finally(() => clearTimeout(timer));
}

async function registrationProblems(
  policy: CompiledPolicy,
  registrar: Pick<Registrar, "check">,
  timeoutMs = 3000,
): Promise<PolicyProblem[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  const refusal = await Promise.race([
    registrar.check(policy, policyIdOf(policy)).catch(() => undefined),
    late,
  ]).finally(() => clearTimeout(timer));
  if (refusal === undefined) return [];
  const field = !/matchConditions/.test(refusal)
    ? "spec"
    : celKindOf(policy) !== undefined
      ? "spec.matchConditions"
      : "spec.webhookConfiguration.matchConditions";
  return [
    problem(
      field,
      `the API server refuses the webhook Bylaw would register for this policy (and would refuse it for every other policy with it): ${refusal}`,
    ),
  ];
}
