/**
 * A kyverno.io CleanupPolicy / ClusterCleanupPolicy compiled for the cleanup controller, and its
 * decision for one candidate object (Kyverno's cleanup controller, `pkg/controllers/cleanup`): the
 * object is deleted when `spec.match` selects it, `spec.exclude` does not, and `spec.conditions`
 * hold with `target` set to the object, `request.namespace` to its namespace and the policy's
 * `context` entries loaded. There is no request and no user: match and exclude are evaluated as in
 * a background scan. A namespaced CleanupPolicy sees only objects of its own namespace. What cannot
 * be evaluated (a context entry that fails, a condition that errors) is an error, never a deletion
 * and never a silent skip.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import type { AnyAllConditions, ContextEntry, MatchResources } from "../api/policy.js";
import { err, ok, type Result } from "../api/result.js";
import { problem, type PolicyProblem } from "../api/problem.js";
import { parseApiVersion, type Resource } from "../api/resource.js";
import { compileMatch } from "../match/match-rule.js";
import type { CompiledMatch } from "../match/types.js";
import { enterScope } from "../context/enter-scope.js";
import { ExpressionCache } from "../variables/index.js";
import { schemaProblems } from "../policy/schema/check-schema.js";
import { cleanupPolicyProblems, isCleanupPolicyDocument } from "../policy/cleanup/check-cleanup-policy.js";
import type { EngineEnv } from "../pipeline/types.js";

export type DeletionPropagation = "Foreground" | "Background" | "Orphan";

export interface CompiledCleanupPolicy {
  readonly kind: "CleanupPolicy" | "ClusterCleanupPolicy";
  readonly name: string;
  /** "" for a ClusterCleanupPolicy. */
  readonly namespace: string;
  readonly schedule: string;
  /** The kinds `spec.match` names (Kyverno's `GetKinds`: every filter's kinds, as written). */
  readonly kinds: readonly string[];
  readonly propagation: DeletionPropagation | undefined;
  readonly document: JsonObject;
  readonly match: CompiledMatch;
  readonly context: readonly ContextEntry[] | undefined;
  readonly conditions: AnyAllConditions | undefined;
  readonly cache: ExpressionCache;
}

/** One object the policy may delete, with its namespace's labels (for namespaceSelector). */
export interface CleanupCandidate {
  readonly resource: Resource;
  readonly namespaceLabels: Readonly<Record<string, string>>;
}

/** Compiles a cleanup policy document: its CRD schema and Kyverno's checks first. */
export function compileCleanupPolicy(
  doc: JsonValue,
  env: Pick<EngineEnv, "jmespath">,
): Result<CompiledCleanupPolicy, PolicyProblem[]> {
  if (!isObject(doc) || !isCleanupPolicyDocument(doc))
    return { ok: false, error: [problem("kind", "not a CleanupPolicy or ClusterCleanupPolicy")] };
  const problems = [...(schemaProblems(doc) ?? []), ...cleanupPolicyProblems(doc)];
  if (problems.length > 0) return { ok: false, error: problems };
  const metadata = isObject(doc["metadata"]) ? doc["metadata"] : {};
  const spec = isObject(doc["spec"]) ? doc["spec"] : {};
  const kind = doc["kind"] === "CleanupPolicy" ? "CleanupPolicy" : "ClusterCleanupPolicy";
  const match = (isObject(spec["match"]) ? spec["match"] : {}) as unknown as MatchResources;
  const exclude = isObject(spec["exclude"]) ? (spec["exclude"] as unknown as MatchResources) : undefined;
  const namespace = kind === "CleanupPolicy" && typeof metadata["namespace"] === "string" ? metadata["namespace"] : "";
  const propagation = spec["deletionPropagationPolicy"];
  return ok({
    kind,
    name: typeof metadata["name"] === "string" ? metadata["name"] : "",
    namespace,
    schedule: typeof spec["schedule"] === "string" ? spec["schedule"] : "",
    kinds: matchKinds(match),
    propagation:
      propagation === "Foreground" || propagation === "Background" || propagation === "Orphan"
        ? propagation
        : undefined,
    document: doc,
    match: compileMatch({ match, ...(exclude !== undefined ? { exclude } : {}) }),
    context: Array.isArray(spec["context"]) ? (spec["context"] as unknown as ContextEntry[]) : undefined,
    conditions: isObject(spec["conditions"]) ? (spec["conditions"] as unknown as AnyAllConditions) : undefined,
    cache: new ExpressionCache(env.jmespath),
  });
}

function matchKinds(match: MatchResources): string[] {
  const kinds = new Set<string>(match.resources?.kinds ?? []);
  for (const f of [...(match.any ?? []), ...(match.all ?? [])]) for (const k of f.resources?.kinds ?? []) kinds.add(k);
  return [...kinds];
}

/**
 * Whether the policy deletes one object: true (delete), false (not selected, excluded, or its
 * conditions do not hold), or an error saying what could not be evaluated.
 */
export function cleanupDecision(
  policy: CompiledCleanupPolicy,
  candidate: CleanupCandidate,
  env: EngineEnv,
): Result<boolean> {
  const resource = candidate.resource;
  const meta = isObject(resource["metadata"]) ? resource["metadata"] : {};
  const namespace = typeof meta["namespace"] === "string" ? meta["namespace"] : "";
  const kind = typeof resource["kind"] === "string" ? resource["kind"] : "";
  const { group, version } = parseApiVersion(typeof resource["apiVersion"] === "string" ? resource["apiVersion"] : "");
  const selected = policy.match.matches({
    resource,
    operation: "CREATE",
    gvk: { group, version, kind },
    subresource: "",
    namespaceLabels: candidate.namespaceLabels,
    policyNamespace: policy.namespace,
  });
  if (!selected) return ok(false);
  if (policy.conditions === undefined) return ok(true);
  const entered = enterScope(
    {
      data: { target: resource, request: { namespace } },
      jmespath: env.jmespath,
      fnctx: env.fnctx,
      cache: policy.cache,
      target: true,
      policyNamespace: policy.namespace,
    },
    policy.context,
    policy.conditions,
  );
  if (entered.kind === "error") return err("cleanup", entered.message);
  return ok(entered.kind === "ready");
}
