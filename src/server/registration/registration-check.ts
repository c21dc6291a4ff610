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
import type { Registrar } from "./registrar.js";

/**
 * The policy webhook's checks beyond compiling (`AdmissionDeps.vetPolicy`): `check`, the problems
 * `serve` refuses a policy for at load, then (with registration) whether the API server would
 * accept its webhook.
 */
export function vetPolicy(
  check: (policy: CompiledPolicy) => readonly PolicyProblem[],
  registrar: Pick<Registrar, "check"> | undefined,
): (policy: CompiledPolicy) => Promise<readonly PolicyProblem[]> {
  return async (policy) => {
    const local = check(policy);
    if (registrar === undefined || local.some((p) => p.severity === "error")) return local;
    return [...local, ...(await registrationProblems(policy, registrar))];
  };
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
  const refusal = await Promise.race([registrar.check(policy).catch(() => undefined), late]).finally(() =>
    clearTimeout(timer),
  );
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
