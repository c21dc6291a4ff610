/**
 * The policy webhook's checks of a policy being created or updated beyond compiling
 * (`AdmissionDeps.vetPolicy`), each bounded by the policy webhook's own deadline:
 * - what Kyverno's policy webhook asks the API server (cluster-policy-checks.ts: kinds served,
 *   generate scope and permissions). These fail closed: when the API server does not answer them in
 *   time, or a check fails, the policy is refused with the reason and may be applied again. A policy
 *   admitted unchecked could be Ready with a rule nothing may run, or reach outside a tenant's
 *   namespace until the controllers' own checks stop it, and a tenant could slow the API server on
 *   purpose to get there. When those find nothing, whether the policy's author may do what it
 *   makes the background controller do (author-access.ts, tenant-isolation.md rule 4).
 * - with registration (`--register`), whether the API server would accept the webhook configuration
 *   Bylaw writes with this policy in it, asked with a dry-run write (registrar.ts `check`), since only
 *   its own CEL compiler, cost estimator and size limits settle it. A refusal denies the policy with
 *   the API server's reason. No answer in time admits it: registration then leaves the policy out if
 *   the API server refuses it, and its status says so (not Ready), so nothing passes silently.
 */
import { type BackgroundWrite, problem, type CompiledPolicy, type PolicyProblem } from "../../engine/index.js";
import { celKindOf } from "../admission/cel-webhook-traits.js";
import type { Registrar } from "../../controllers/registration/registrar.js";
import { policyIdOf } from "./build-configurations.js";
import { clusterPolicyProblems, type ClusterPolicyChecks } from "./cluster-policy-checks.js";
import { authorPermissionProblems, authorWriteProblems, type PolicyAuthor } from "./author-access.js";

interface VetOptions {
  /** The problems `serve` refuses a policy for at load. */
  readonly check: (policy: CompiledPolicy) => readonly PolicyProblem[];
  readonly registrar?: Pick<Registrar, "check">;
  readonly cluster?: ClusterPolicyChecks;
  /** How long all the checks of one policy may take: below the policy webhook's timeout. */
  readonly deadlineMs: number;
  /** The clock (milliseconds) the deadline is measured on. */
  readonly now?: () => number;
}

export function vetPolicy(
  o: VetOptions,
): (policy: CompiledPolicy, author?: PolicyAuthor) => Promise<readonly PolicyProblem[]> {
  const now = o.now ?? (() => performance.now());
  return async (policy, author) => {
    const started = now();
    const local = o.check(policy);
    if (local.some((p) => p.severity === "error")) return local;
    const cluster = o.cluster;
    const found =
      cluster === undefined
        ? []
        : await bounded(() => clusterAndAuthorProblems(policy, cluster, author), {
            deadlineMs: o.deadlineMs,
            what: WHAT,
          });
    if (o.registrar === undefined || found.length > 0) return [...local, ...found];
    const left = Math.max(o.deadlineMs - (now() - started), 0);
    return [...local, ...(await registrationProblems(policy, o.registrar, left))];
  };
}

/** `work`'s answer within `ms`, else `late` (its failure is rethrown). */
async function within<T>(work: Promise<T>, ms: number, late: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(late), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const WHAT = "the kinds it names, its generate targets and the permissions its rules and its author need";
const WHAT_CLEANUP = "whether its author may list and delete what it matches";

/** Kyverno's checks, then (when they find nothing) the author's permissions (author-access.ts). */
async function clusterAndAuthorProblems(
  policy: CompiledPolicy,
  cluster: ClusterPolicyChecks,
  author: PolicyAuthor | undefined,
): Promise<PolicyProblem[]> {
  const found = await clusterPolicyProblems(policy, cluster);
  if (found.length > 0 || author === undefined) return found;
  return authorPermissionProblems(policy, author, cluster);
}

/**
 * A cleanup policy's author check (`AdmissionDeps.vetCleanup`): whether its author may list and
 * delete what it makes the cleanup controller delete (author-access.ts), bounded and failing closed
 * as the other checks. Without the API server's checks (no --cluster) or an author: nothing.
 */
export function vetCleanup(
  o: Pick<VetOptions, "cluster" | "deadlineMs">,
): (deletes: readonly BackgroundWrite[], author?: PolicyAuthor) => Promise<readonly PolicyProblem[]> {
  return async (deletes, author) => {
    const cluster = o.cluster;
    if (cluster === undefined || author === undefined || deletes.length === 0) return [];
    return bounded(() => authorWriteProblems({ writes: deletes, author, checks: cluster, actor: "cleanup" }), {
      deadlineMs: o.deadlineMs,
      what: WHAT_CLEANUP,
    });
  };
}

/** `check`'s problems within `deadlineMs`; no answer in time, or a failure, is a problem that refuses the policy. */
async function bounded(
  check: () => Promise<PolicyProblem[]>,
  o: { readonly deadlineMs: number; readonly what: string },
): Promise<PolicyProblem[]> {
  const { deadlineMs, what } = o;
  const unanswered = Symbol("unanswered");
  try {
    const found = await within<PolicyProblem[] | typeof unanswered>(check(), deadlineMs, unanswered);
    if (found !== unanswered) return found;
    return [
      problem(
        "spec",
        `Bylaw could not check this policy against the API server within ${seconds(deadlineMs)} (${what}): the API server did not answer in time; nothing was stored, apply it again`,
      ),
    ];
  } catch (e) {
    return [
      problem(
        "spec",
        `Bylaw could not check this policy against the API server (${what}): ${e instanceof Error ? e.message : String(e)}; nothing was stored`,
      ),
    ];
  }
}

const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;

async function registrationProblems(
  policy: CompiledPolicy,
  registrar: Pick<Registrar, "check">,
  timeoutMs: number,
): Promise<PolicyProblem[]> {
  const refusal = await within(
    registrar.check(policy, policyIdOf(policy)).catch(() => undefined),
    timeoutMs,
    undefined,
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
