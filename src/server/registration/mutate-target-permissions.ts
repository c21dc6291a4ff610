/**
 * Whether the background controller's ServiceAccount may get and update what a mutate-existing
 * rule's `mutate.targets` name, asked of the API server as Kyverno's policy webhook asks it
 * (`validateAuth` in `pkg/policy/mutate/validate.go`; the text is `buildMessage` of
 * `pkg/policy/auth`): every target whose kind has no variable, in its namespace and with its name
 * as written; each target missing a verb is one problem naming the verbs missing.
 */
import {
  kyvernoRulesOf,
  isObject,
  parseKindSelector,
  problem,
  type CompiledPolicy,
  type JsonValue,
  type PolicyProblem,
} from "../../engine/index.js";
import { refusedVerbs, type PermissionChecks } from "./background-access.js";

const VERBS = ["get", "update"] as const;

interface Target {
  readonly path: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

export async function mutateTargetPermissionProblems(
  policy: CompiledPolicy,
  checks: PermissionChecks,
): Promise<PolicyProblem[]> {
  const found = await Promise.all(targetsOf(policy).map((t) => missingVerbs(t, checks)));
  return found.filter((p) => p !== undefined);
}

function targetsOf(policy: CompiledPolicy): Target[] {
  const out: Target[] = [];
  kyvernoRulesOf(policy).forEach((rule, i) => {
    const targets = isObject(rule.mutate) ? rule.mutate["targets"] : undefined;
    if (!Array.isArray(targets)) return;
    for (const t of targets) {
      if (!isObject(t) || text(t["kind"]) === "" || text(t["kind"]).includes("{{")) continue;
      out.push({
        path: `spec.rules[${i}].mutate.targets`,
        apiVersion: text(t["apiVersion"]),
        kind: text(t["kind"]),
        namespace: text(t["namespace"]),
        name: text(t["name"]),
      });
    }
  });
  return out;
}

async function missingVerbs(target: Target, checks: PermissionChecks): Promise<PolicyProblem | undefined> {
  const selector = parseKindSelector(target.kind);
  const gvk = `${target.apiVersion}/${selector.kind}`;
  const missing = await refusedVerbs(
    {
      kind: parseKindSelector(target.apiVersion === "" ? target.kind : `${target.apiVersion}/${target.kind}`),
      verbs: VERBS,
      subresource: selector.subresource,
      namespace: target.namespace,
      name: target.name,
    },
    checks,
  );
  if (missing === "unknown") return undefined;
  if (missing === "no-resource") return problem(target.path, `failed to get GVR for kind ${gvk}`);
  if (missing.length === 0) return undefined;
  const on = selector.subresource === "" ? gvk : `${gvk}/${selector.subresource}`;
  const where = target.namespace === "" ? "" : ` in namespace ${target.namespace}`;
  return problem(target.path, `${checks.user} requires permissions ${missing.join(",")} for resource ${on}${where}`);
}

function text(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}
