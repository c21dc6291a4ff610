/**
 * The policy validating webhook (`/policyvalidate`; Kyverno `pkg/webhooks/policy/handlers.go`,
 * `pkg/validation/policy/validate.go`, `pkg/deprecations/deprecations.go`): a kyverno.io ClusterPolicy
 * or Policy being created or updated is compiled as Bylaw would load it. Problems deny it, each as
 * `<field path>: <message>` joined by "; "; warnings are returned with the answer either way.
 * A valid legacy kyverno.io kind also gets Kyverno 1.19's deprecation warning
 * (`pkg/deprecations/deprecations.go`). A policies.kyverno.io policy kind is compiled as `serve`
 * loads it (policy-validate-cel.ts); a PolicyException of either group is compiled as `serve` loads
 * it, with Kyverno's warnings when it will not be honoured (policy-validate-exception.ts). A
 * kyverno.io CleanupPolicy / ClusterCleanupPolicy gets Kyverno's checks (an invalid schedule, user
 * info in match/exclude, a configMap or imageRegistry context entry); valid, it is admitted when the
 * cleanup controller runs (`serve --cluster`), and refused otherwise: a kind Bylaw cannot serve is
 * refused, never half-served.
 * Any other object, and DELETE, is allowed untouched.
 */
import {
  type BackgroundWrite,
  cleanupDeletes,
  compileCleanupPolicy,
  type CompiledPolicy,
  isObject,
  jsonEqual,
  type JsonValue,
  type PolicyProblem,
} from "../../engine/index.js";
import { tenantProblems } from "../tenancy/tenant-problems.js";
import { type AdmissionDeps, cleanupControllerRuns } from "./deps.js";
import { startDeadline } from "./deadline.js";
import { guarded, internalError } from "./guard.js";
import { outcomeOf, recordOutcome } from "./record.js";
import { checkCelPolicy } from "./policy-validate-cel.js";
import { checkException } from "./policy-validate-exception.js";
import { allowed, denied } from "./response.js";
import type { AdmissionRequestJson, AdmissionReviewJson, HandlerResult } from "./types.js";
import { problemText, withPolicyFixHint } from "../../platform/policy-documents/index.js";
import { unservedKind, unservedRules } from "../policy-source/unserved-parts.js";
import type { PolicyAuthor } from "../registration/author-access.js";

/*
 * The deprecation notices are Kyverno v1.19.0's own, word for word: `Warning(kind)` of
 * `pkg/deprecations/deprecations.go` as kyverno/kyverno#16868 ("surface deprecation of legacy
 * kyverno.io policy types", merged before the v1.19.0 tag of 2026-08-20) wrote it,
 * `<Kind> (kyverno.io) is deprecated …; migrate to <replacements> (policies.kyverno.io), see <guide>`,
 * returned by the policy webhook, the exception webhook (PolicyException) and the cleanup
 * controller's. A later form of that file (`kyverno.io/v1 ClusterPolicy is deprecated …`, Policy →
 * "NamespacedValidatingPolicy and the other namespaced policy types") came with kyverno/kyverno#17362,
 * opened 2026-08-26, after v1.19.0; users of chart 3.9.0 (Kyverno v1.19.0) quote the `(kyverno.io)`
 * form. The `kyverno.io/v1 … is deprecated` lines kubectl prints on every read of the kind under
 * later releases come from their CRDs' deprecationWarning, which v1.19.0's CRDs (and deploy/crds)
 * do not carry.
 */
const MIGRATION_GUIDE = "https://kyverno.io/docs/guides/migration-to-cel/";

/** The policies.kyverno.io kinds each legacy kyverno.io kind is to be migrated to. */
const REPLACEMENTS: Readonly<Record<string, string>> = {
  ClusterPolicy: "ValidatingPolicy, MutatingPolicy, GeneratingPolicy or ImageValidatingPolicy",
  Policy:
    "NamespacedValidatingPolicy, NamespacedMutatingPolicy, NamespacedGeneratingPolicy or NamespacedImageValidatingPolicy",
  ClusterCleanupPolicy: "DeletingPolicy",
  CleanupPolicy: "NamespacedDeletingPolicy",
  PolicyException: "PolicyException",
};

/** Kyverno's notice for a legacy kyverno.io policy kind; undefined for any other kind. */
function deprecationWarning(kind: string): string | undefined {
  const replacement = Object.hasOwn(REPLACEMENTS, kind) ? REPLACEMENTS[kind] : undefined;
  if (replacement === undefined) return undefined;
  return `${kind} (kyverno.io) is deprecated and will be removed in a future release; migrate to ${replacement} (policies.kyverno.io), see ${MIGRATION_GUIDE}`;
}

export function handlePolicyValidate(body: unknown, deps: AdmissionDeps): HandlerResult {
  return guarded(body, deps, "policyvalidate", undefined, (request) => {
    const deadline = startDeadline(deps);
    return answered(request, deps, checkPolicy(request, deps).answer, () => deadline.elapsed());
  });
}

/**
 * The policy webhook as `serve` runs it: `handlePolicyValidate`, then, for a policy it admits,
 * `deps.vetPolicy` (its webhook as the API server will check it: registration-check.ts); any error
 * it finds denies the policy, with the field and reason.
 */
export function handlePolicyValidateVetted(body: unknown, deps: AdmissionDeps): HandlerResult | Promise<HandlerResult> {
  const vet = deps.vetPolicy;
  if (vet === undefined) return handlePolicyValidate(body, deps);
  let pending: Promise<HandlerResult> | undefined;
  const first = guarded(body, deps, "policyvalidate", undefined, (request) => {
    const deadline = startDeadline(deps);
    const checked = checkPolicy(request, deps);
    const answer = checked.answer;
    const check = answer.response.allowed
      ? vetChecked(checked, authorOf(request), { ...deps, vetPolicy: vet })
      : undefined;
    if (check === undefined) return answered(request, deps, answer, () => deadline.elapsed());
    pending = check.then(
      (problems) => answered(request, deps, withProblems(answer, problems, request.uid), () => deadline.elapsed()),
      (e: unknown) => internalError(request, deps, "policyvalidate", undefined, e),
    );
    return { status: 200, body: answer };
  });
  return pending ?? first;
}

/** What asks the API server about an admitted policy: vetPolicy for one `serve` loads, vetCleanup for a cleanup policy. */
function vetChecked(
  checked: Checked,
  author: PolicyAuthor | undefined,
  deps: Pick<AdmissionDeps, "vetCleanup"> & Required<Pick<AdmissionDeps, "vetPolicy">>,
): Promise<readonly PolicyProblem[]> | undefined {
  if (checked.compiled !== undefined) return deps.vetPolicy(checked.compiled, author);
  if (checked.deletes !== undefined) return deps.vetCleanup?.(checked.deletes, author);
  return undefined;
}

/**
 * Who wrote what the policy does: the user of a create, or of an update that changes its spec. An
 * update of its metadata only (a label, a finalizer, the garbage collector's owner references)
 * changes nothing it does, and is not asked about.
 */
function authorOf(request: AdmissionRequestJson): PolicyAuthor | undefined {
  const old = request.oldObject;
  if (request.operation === "UPDATE" && isObject(old) && isObject(request.object))
    if (jsonEqual(old["spec"], request.object["spec"])) return undefined;
  return request.userInfo;
}

/** Records the answer and returns it. */
function answered(
  request: AdmissionRequestJson,
  deps: AdmissionDeps,
  answer: AdmissionReviewJson,
  elapsed: () => number,
): HandlerResult {
  recordOutcome(
    deps,
    outcomeOf(request, undefined, "policyvalidate", {
      allowed: answer.response.allowed,
      durationSeconds: elapsed(),
      warnings: answer.response.warnings?.length ?? 0,
    }),
  );
  return { status: 200, body: answer };
}

/** The answer denied when `problems` hold errors (its warnings kept), else unchanged. */
function withProblems(
  answer: AdmissionReviewJson,
  problems: readonly PolicyProblem[],
  uid: string,
): AdmissionReviewJson {
  const errors = problems.filter((p) => p.severity === "error");
  if (errors.length === 0) return answer;
  return denied(uid, errors.map(problemText).join("; "), [...(answer.response.warnings ?? [])]);
}

interface Checked {
  readonly answer: AdmissionReviewJson;
  /** The policy as `serve` would load it, when it compiled. */
  readonly compiled?: CompiledPolicy;
  /** A cleanup policy's: what it makes the cleanup controller list and delete (its author must be allowed). */
  readonly deletes?: readonly BackgroundWrite[];
}

function checkPolicy(request: AdmissionRequestJson, deps: AdmissionDeps): Checked {
  const object = request.object;
  if (request.operation === "DELETE" || !isObject(object)) return { answer: allowed(request.uid) };
  const apiVersion = typeof object["apiVersion"] === "string" ? object["apiVersion"] : "";
  const kind = typeof object["kind"] === "string" ? object["kind"] : request.kind.kind;
  const cel = apiVersion.startsWith("policies.kyverno.io/") || request.kind.group === "policies.kyverno.io";
  if (!cel && !apiVersion.startsWith("kyverno.io/") && request.kind.group !== "kyverno.io")
    return { answer: allowed(request.uid) };
  const deprecation = cel ? undefined : deprecationWarning(kind);
  const classified = deps.engine.classify({
    apiVersion: apiVersion || `${request.kind.group}/${request.kind.version}`,
    kind,
  });
  if (classified.role === "exception")
    return {
      answer: checkException(request, object, { engine: deps.engine, scope: deps.clusterExceptions, deprecation }),
    };
  if (cel) return checkCelPolicy(request, object, kind, deps);
  if (deps.engine.classify(object).role === "not-a-policy")
    return { answer: allowed(request.uid, deprecation === undefined ? [] : [deprecation]) };
  const outcome = deps.engine.compile(object);
  // A namespaced Policy or CleanupPolicy is tenant input: what it visibly reaches outside its namespace is
  // refused here, with the field (tenant-isolation.md); what depends on variables is checked again at run time.
  const namespaced = classified.role === "policy" && classified.kind.scope === "namespaced";
  const tenant = namespaced ? tenantProblems(object, namespaceOf(object, request)) : [];
  // With the cleanup controller running, a cleanup policy that passes Kyverno's checks is admitted (it has no rules to serve here).
  const cleanupRuns = cleanupControllerRuns(deps);
  const cleanupPolicy = cleanupRuns ? compileCleanupPolicy(object, deps.engine.env) : undefined;
  if (outcome.ok && tenant.length === 0 && cleanupPolicy?.ok === true)
    return {
      answer: allowed(request.uid, deprecation === undefined ? [] : [deprecation]),
      deletes: cleanupDeletes(cleanupPolicy.value),
    };
  if (!outcome.ok || tenant.length > 0) {
    const problems = [...(outcome.ok ? [] : outcome.problems), ...tenant];
    const errors = problems.filter((p) => p.severity === "error");
    const warnings = problems.filter((p) => p.severity === "warning").map(problemText);
    if (deprecation !== undefined) warnings.push(deprecation);
    // What `bylaw fix policy` rewrites (a deprecated field) says so, as `bylaw apply` does.
    const reason = withPolicyFixHint(errors.map(problemText).join("; ") || "the policy is not valid");
    return { answer: denied(request.uid, reason, warnings) };
  }
  // A kind Bylaw does not run (a cleanup policy without the cleanup controller) is refused once Kyverno's own checks pass: admitted, it would never run.
  const unserved = unservedKind(outcome.policy);
  if (unserved !== undefined)
    return { answer: denied(request.uid, unserved.message, deprecation === undefined ? [] : [deprecation]) };
  const warnings = outcome.policy.warnings.filter((p) => p.severity === "warning").map(problemText);
  // Rules nothing runs yet: admitted, not Ready, and said here with the condition's text (unserved-parts.ts).
  warnings.push(
    ...unservedRules(outcome.policy, deps.runs?.() ?? { generate: deps.onGenerateWork !== undefined }).map(problemText),
  );
  if (deprecation !== undefined) warnings.push(deprecation);
  return { answer: allowed(request.uid, warnings), compiled: outcome.policy };
}

function namespaceOf(object: { readonly [k: string]: JsonValue }, request: AdmissionRequestJson): string {
  const metadata = object["metadata"];
  const ns = isObject(metadata) && typeof metadata["namespace"] === "string" ? metadata["namespace"] : "";
  return ns !== ""
    ? ns
    : typeof request.namespace === "string" && request.namespace !== ""
      ? request.namespace
      : "default";
}
