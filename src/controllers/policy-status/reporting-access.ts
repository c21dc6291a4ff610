/**
 * Kyverno's `RBACPermissionsGranted` condition of a policies.kyverno.io policy (its status
 * controller): whether whoever runs background reports may get, list and watch each resource the
 * policy's `spec.matchConstraints.resourceRules` name (every apiGroup × apiVersion × resource,
 * `*` included, asked as written). Bylaw asks it of the API server for the identity that runs its
 * background scans: this process's own (`--reports-controller`, or `--component reports` beside
 * admission), or, when the reports component runs in processes of its own, its ServiceAccount
 * (bylaw-reports-controller), asked with a SubjectAccessReview as Kyverno's admission controller
 * asks for its reports controller's, from the time that component's Lease shows it was started
 * (`started`). Where no process runs background scans, the condition is not written (nothing
 * was checked).
 * - granted: True, "Policy is ready for reporting.";
 * - not: False, "Policy is not ready for reporting, missing permissions: " and each refusal as
 *   Kyverno words it (`list /v1, Resource=pods: <the authorizer's reason>`), joined by "; ", then ".".
 *   A review that could not be made is listed with its error, as Kyverno lists it.
 * Answers are kept for `ttlMs` (default 20 s), so a resync of many policies asks little.
 */
import { isObject, type JsonValue } from "../../engine/index.js";
import type { PolicyOutcome } from "./policy-status.js";

/** The kinds Kyverno 1.19 writes the condition for (not DeletingPolicy). */
const REPORTING_KINDS: ReadonlySet<string> = new Set([
  "ValidatingPolicy",
  "NamespacedValidatingPolicy",
  "ImageValidatingPolicy",
  "NamespacedImageValidatingPolicy",
  "MutatingPolicy",
  "NamespacedMutatingPolicy",
  "GeneratingPolicy",
  "NamespacedGeneratingPolicy",
]);

const VERBS = ["get", "list", "watch"] as const;

interface Gvr {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

type Check = (verb: string, gvr: Gvr) => Promise<{ readonly allowed: boolean; readonly reason: string }>;

const strings = (v: JsonValue | undefined): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

/** Each group/version/resource of the spec's matchConstraints.resourceRules, in order. */
export function reportingResources(spec: JsonValue | undefined): Gvr[] {
  const constraints = isObject(spec) ? spec["matchConstraints"] : undefined;
  const rules =
    isObject(constraints) && Array.isArray(constraints["resourceRules"]) ? constraints["resourceRules"] : [];
  const out: Gvr[] = [];
  for (const rule of rules.filter(isObject))
    for (const group of strings(rule["apiGroups"]))
      for (const version of strings(rule["apiVersions"]))
        for (const resource of strings(rule["resources"])) out.push({ group, version, resource });
  return out;
}

/** The condition's message for these refusals (none: granted). */
export function reportingMessage(missing: readonly string[]): string {
  return missing.length === 0
    ? "Policy is ready for reporting."
    : `Policy is not ready for reporting, missing permissions: ${missing.join("; ")}.`;
}

/** The refusals for a policy's resources (undefined: a kind without the condition), each answer kept `ttlMs`. */
export function reportingAccess(options: {
  readonly check: Check;
  readonly now: () => number;
  readonly ttlMs?: number;
  /** Whether whoever `check` asks about runs (has been started); false: nothing is checked (undefined). Default: always. */
  readonly started?: () => boolean;
}): (outcome: PolicyOutcome) => Promise<readonly string[] | undefined> {
  const answers = new Map<string, { readonly at: number; readonly refusal: string | undefined }>();
  const ttl = options.ttlMs ?? 20_000;
  const ask = async (verb: string, gvr: Gvr): Promise<string | undefined> => {
    const key = `${verb} ${gvr.group}/${gvr.version}, Resource=${gvr.resource}`;
    const kept = answers.get(key);
    if (kept !== undefined && options.now() - kept.at < ttl) return kept.refusal;
    let refusal: string | undefined;
    try {
      const answer = await options.check(verb, gvr);
      refusal = answer.allowed ? undefined : `${key}: ${answer.reason}`;
    } catch (e) {
      refusal = e instanceof Error ? e.message : String(e);
    }
    answers.set(key, { at: options.now(), refusal });
    return refusal;
  };
  return async (outcome) => {
    if (!REPORTING_KINDS.has(outcome.kind) || options.started?.() === false) return undefined;
    const missing: string[] = [];
    for (const gvr of reportingResources(outcome.spec))
      for (const verb of VERBS) {
        const refusal = await ask(verb, gvr);
        if (refusal !== undefined) missing.push(refusal);
      }
    return missing;
  };
}
