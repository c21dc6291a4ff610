/**
 * Whether the background controller may list the existing triggers of a generate rule with
 * `generateExisting` (or the deprecated `spec.generateExisting`), or of a mutate-existing rule with
 * `mutateExistingOnPolicyUpdate` (mutate-existing/existing-triggers.ts): when the policy appears, the
 * controller lists every object of the rule's match kinds (controllers/generate/existing-triggers.ts;
 * a namespaced Policy's in its namespace) and reads each trigger again when its request runs, so it
 * needs `get` and `list` on them. Kyverno's background controller reads every resource, so Kyverno
 * asks nothing here; Bylaw's reads only what it is granted (deploy/README.md, "What is not granted"),
 * and without this check such a policy would be Ready while its existing triggers get nothing. The
 * text follows generate-permissions.ts (Kyverno's `canIGenerate`).
 */
import {
  kyvernoRulesOf,
  parseKindSelector,
  problem,
  type CompiledPolicy,
  type PolicyProblem,
} from "../../engine/index.js";
import { generateExistingRules, writtenKinds } from "../../controllers/generate/existing-triggers.js";
import { mutateOnPolicyUpdateRules } from "../../controllers/mutate-existing/existing-triggers.js";
import { refusedVerbs, type PermissionChecks } from "./background-access.js";

const VERBS = ["get", "list"] as const;

export async function existingTriggerPermissionProblems(
  policy: CompiledPolicy,
  checks: PermissionChecks,
): Promise<PolicyProblem[]> {
  const generate = generateExistingRules(policy);
  const mutate = mutateOnPolicyUpdateRules(policy);
  const asks: Promise<PolicyProblem | undefined>[] = [];
  kyvernoRulesOf(policy).forEach((rule, i) => {
    const flag = generate.includes(rule.name)
      ? "generateExisting"
      : mutate.includes(rule.name)
        ? "mutateExistingOnPolicyUpdate"
        : undefined;
    if (flag === undefined) return;
    const path = `spec.rules[${i}].${flag === "generateExisting" ? "generate" : "mutate"}.${flag}`;
    for (const kind of writtenKinds(policy, [rule.name])) {
      const wanted: Wanted = { kind, namespace: policy.namespace, path, flag };
      asks.push(kind.includes("*") ? Promise.resolve(wildcardProblem(wanted)) : missingVerb(wanted, checks));
    }
  });
  return (await Promise.all(asks)).filter((p) => p !== undefined);
}

interface Wanted {
  readonly kind: string;
  /** "" for a ClusterPolicy: listed in every namespace. */
  readonly namespace: string;
  readonly path: string;
  /** The rule's field that lists the existing triggers. */
  readonly flag: "generateExisting" | "mutateExistingOnPolicyUpdate";
}

async function missingVerb(wanted: Wanted, checks: PermissionChecks): Promise<PolicyProblem | undefined> {
  const selector = parseKindSelector(wanted.kind);
  const refused = await refusedVerbs(
    { kind: selector, verbs: VERBS, subresource: "", namespace: wanted.namespace },
    checks,
  );
  if (refused === "unknown" || refused === "no-resource") return undefined;
  const first = refused[0];
  if (first === undefined) return undefined;
  const where = wanted.namespace === "" ? "in every namespace" : `in namespace ${wanted.namespace}`;
  return problem(
    wanted.path,
    `${checks.user} does not have permissions to '${first}' resource ${wanted.kind} ${where}, the existing triggers ${wanted.flag} reads. Grant proper permissions to the background controller`,
  );
}

/**
 * A wildcard kind (`*`, or `*` as the group, version or kind) in a rule whose existing triggers are listed: the
 * controller lists kinds one by one and would list none for it, so the rule would never run for
 * the objects that exist. Refused, naming the wildcard (Kyverno refuses `*` with a generate rule
 * outright: "wildcard policy does not support rule type").
 */
function wildcardProblem({ kind, path, flag }: Wanted): PolicyProblem {
  return problem(
    path,
    `${flag} cannot list the existing triggers of the wildcard kind ${kind}: name the kinds it should list in match, or set ${flag} to false`,
  );
}
