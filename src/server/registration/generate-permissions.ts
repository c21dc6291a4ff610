/**
 * Whether the ServiceAccount that runs generate rules (Bylaw's background controller,
 * deploy/base/rbac/background-controller.yaml) may write what a policy's generate rules write, asked
 * of the API server as Kyverno's policy webhook asks it (`canIGenerate` in
 * `pkg/policy/generate/validate.go`, with its text): create, update, get and delete on each target
 * kind (and each cloneList kind) in the target namespace as written; the first verb refused names
 * it. A kind written with a variable is not checked (it is known only at run time).
 */
import { parseKindSelector, problem, type CompiledPolicy, type PolicyProblem } from "../../engine/index.js";
import type { ResourceAccess } from "../../kube/access-review.js";
import type { KindResolver } from "./kind-problems.js";
import { generateTargets } from "./generate-targets.js";

const VERBS = ["create", "update", "get", "delete"] as const;

export interface PermissionChecks {
  readonly resolve: KindResolver;
  readonly canI: (access: ResourceAccess) => Promise<boolean>;
  /** `system:serviceaccount:<namespace>:<name>` of the background controller. */
  readonly user: string;
}

export async function generatePermissionProblems(
  policy: CompiledPolicy,
  checks: PermissionChecks,
): Promise<PolicyProblem[]> {
  const asks: Promise<PolicyProblem | undefined>[] = [];
  for (const target of generateTargets(policy))
    for (const kind of target.kinds)
      if (!kind.includes("{{"))
        asks.push(missingVerb({ kind, namespace: target.namespace, path: target.path }, checks));
  return (await Promise.all(asks)).filter((p) => p !== undefined);
}

interface Wanted {
  readonly kind: string;
  readonly namespace: string;
  readonly path: string;
}

async function missingVerb(wanted: Wanted, checks: PermissionChecks): Promise<PolicyProblem | undefined> {
  const selector = parseKindSelector(wanted.kind);
  const found = checks.resolve(selector);
  if (found === undefined) return undefined;
  const gv =
    selector.version === "*" ? "" : selector.group === "*" ? selector.version : `${selector.group}/${selector.version}`;
  const gvk = gv === "" ? selector.kind : `${gv}/${selector.kind}`;
  const resource = found.find((r) => !r.resource.includes("/")) ?? found[0];
  if (resource === undefined) return problem(wanted.path, `failed to get GVR for kind ${wanted.kind}`);
  const plural = resource.resource.split("/")[0] ?? resource.resource;
  const allowed = await Promise.all(
    VERBS.map((verb) =>
      checks.canI({
        user: checks.user,
        verb,
        group: resource.group,
        resource: plural,
        subresource: selector.subresource === "*" ? "" : selector.subresource,
        namespace: wanted.namespace,
      }),
    ),
  );
  const refused = VERBS.find((_, i) => allowed[i] !== true);
  if (refused === undefined) return undefined;
  return problem(
    wanted.path,
    `${checks.user} does not have permissions to '${refused}' resource ${gvk}/${selector.subresource}/${wanted.namespace}. Grant proper permissions to the background controller`,
  );
}
