/**
 * Whether the ServiceAccount that runs generate rules (Bylaw's background controller,
 * deploy/base/rbac/background-controller.yaml) may write what a policy's generate rules write, asked
 * of the API server as Kyverno's policy webhook asks it (`canIGenerate` in
 * `pkg/policy/generate/validate.go`, with its text): create, update, get and delete on each target
 * kind (and each cloneList kind) in the target namespace as written; the first verb refused names
 * it. A kind written with a variable is not checked (it is known only at run time).
 */
import { parseKindSelector, problem, type CompiledPolicy, type PolicyProblem } from "../../engine/index.js";
import { refusedVerbs, type PermissionChecks } from "./background-access.js";
import { generateTargets } from "./generate-targets.js";

const VERBS = ["create", "update", "get", "delete"] as const;

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
  const refused = await refusedVerbs(
    {
      kind: selector,
      verbs: VERBS,
      subresource: selector.subresource === "*" ? "" : selector.subresource,
      namespace: wanted.namespace,
    },
    checks,
  );
  if (refused === "unknown") return undefined;
  if (refused === "no-resource") return problem(wanted.path, `failed to get GVR for kind ${wanted.kind}`);
  const first = refused[0];
  if (first === undefined) return undefined;
  const gv =
    selector.version === "*" ? "" : selector.group === "*" ? selector.version : `${selector.group}/${selector.version}`;
  const gvk = gv === "" ? selector.kind : `${gv}/${selector.kind}`;
  return problem(
    wanted.path,
    `${checks.user} does not have permissions to '${first}' resource ${gvk}/${selector.subresource}/${wanted.namespace}. Grant proper permissions to the background controller`,
  );
}
