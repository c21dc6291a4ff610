/**
 * A policy kind Bylaw does not run yet (kyverno.io CleanupPolicy/ClusterCleanupPolicy, a CEL kind at a
 * version Bylaw does not run; kinds/registry.ts `classify`) compiles to a policy with no rules whose
 * body is the `error` every resource in its scope gets, naming the kind (kinds/unsupported/evaluate.ts). Such a policy never vanishes
 * from a run: `bylaw apply` reports an error for each resource (and exits 1), `bylaw test` rows
 * naming it get `error`. Matching is not attempted: these kinds match through CEL conditions and
 * resource plurals Bylaw does not evaluate yet, so every resource (in the policy's namespace, for
 * the Namespaced kinds) is one it could apply to. A kind whose CRD schema Bylaw holds (kyverno.io
 * CleanupPolicy/ClusterCleanupPolicy, policy/schema/) is checked against it first: an invalid one
 * fails the run rather than becoming a placeholder, and a cleanup policy then gets Kyverno's own
 * checks (cleanup/check-cleanup-policy.ts) too.
 */
import { isObject, type JsonValue } from "../api/json.js";
import type { KindCompileOutcome } from "./compile-policy.js";
import type { CompiledPolicy, UnsourcedPolicy } from "./compiled-policy.js";
import { problem } from "../api/problem.js";
import type { PolicyKindName } from "../kinds/types.js";
import { schemaProblems } from "./schema/check-schema.js";
import { cleanupPolicyProblems, isCleanupPolicyDocument } from "./cleanup/check-cleanup-policy.js";

/** `kindName` names the kind in messages (`<apiVersion> <Kind>`); `policyKind` is the compiled policy's kind. */
export function compileUnsupportedKind(
  doc: JsonValue,
  kindName: string,
  policyKind: PolicyKindName,
): KindCompileOutcome {
  const metadata = isObject(doc) && isObject(doc["metadata"]) ? doc["metadata"] : undefined;
  const name = typeof metadata?.["name"] === "string" ? metadata["name"] : "";
  if (name === "") return { ok: false, problems: [problem("metadata.name", "metadata.name is required")] };
  const invalid = schemaProblems(doc) ?? [];
  if (invalid.length > 0) return { ok: false, problems: invalid };
  const unfit = isObject(doc) && isCleanupPolicyDocument(doc) ? cleanupPolicyProblems(doc) : [];
  if (unfit.length > 0) return { ok: false, problems: unfit };
  const kind = isObject(doc) && typeof doc["kind"] === "string" ? doc["kind"] : "";
  const namespaced = kind.startsWith("Namespaced") || kind === "PolicyException";
  const namespace = namespaced
    ? typeof metadata?.["namespace"] === "string" && metadata["namespace"] !== ""
      ? metadata["namespace"]
      : "default"
    : "";
  const spec = isObject(doc) && isObject(doc["spec"]) ? doc["spec"] : {};
  const message = `${kindName} policies are not supported by Bylaw yet; policy ${name} was not evaluated`;
  const action = denies(spec["validationActions"]) ? ("Enforce" as const) : ("Audit" as const);
  const compiled: UnsourcedPolicy = {
    language: "unsupported",
    document: isObject(doc) ? doc : {},
    kind: policyKind,
    name,
    namespace,
    background: true,
    scored: true,
    warnings: [],
    unsupportedKind: kindName,
    unsupported: { message, action },
  };
  return { ok: true, policy: compiled };
}

/** `validationActions: [Deny, …]` blocks; the kinds without validationActions (mutate, generate, …) deny when they fail. */
function denies(actions: JsonValue | undefined): boolean {
  return !Array.isArray(actions) || actions.includes("Deny");
}

/**
 * Why a policy of a kind Bylaw does not run is refused where it would be served (the policy
 * webhook): admitted, it would do nothing while its author believes it runs.
 */
export function notServedReason(policy: CompiledPolicy): string {
  const kind = policy.language === "unsupported" ? policy.unsupportedKind : policy.kind;
  const cleanup = /^kyverno\.io\/\S+ (Cluster)?CleanupPolicy$/.test(kind);
  const what = cleanup
    ? `Bylaw does not run cleanup policies (it has no cleanup controller yet), so ${policy.name} would never delete anything`
    : `Bylaw does not run this kind, so ${policy.name} would never take effect`;
  return `${kind} is not supported by Bylaw yet: ${what}; it is refused rather than admitted and never run`;
}
