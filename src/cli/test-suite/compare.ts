/**
 * Compare engine responses with one expected row the way `kyverno test` does (Kyverno
 * `cmd/cli/kubectl-kyverno/commands/test/command.go`, `output.go`):
 * policies by name (a `ns/` prefix is ignored), resources by name or `namespace/name`, rules by name
 * or their `autogen-` / `autogen-cronjob-` variants (any rule for an entry flagged as a rule-less kind,
 * `isValidatingPolicy` and the like), results as policy-report results (fail becomes
 * warn when the policy is not scored). A response with no matching rule means the resource was
 * excluded, which counts as a pass.
 */
import {
  type CompiledPolicy,
  type PolicyResponse,
  reportResult,
  type Resource,
  resourceApiVersion,
  resourceKind,
  resourceName,
  resourceNamespace,
  type RuleResult,
} from "../../engine/index.js";
import type { ExpectedResult } from "./test-file.js";
import { payloadFile } from "./payload-key.js";

interface RowVerdict {
  readonly ok: boolean;
  readonly actual: string | null;
  readonly reason: string;
  readonly message: string;
  /** The resource the verdict is about as Kyverno's test table names it (`v1/Pod/default/web`); absent when none was found. */
  readonly subject?: string;
  /**
   * The rule whose result was compared (`autogen-check-team` for a row naming `check-team` on a
   * Deployment), as Kyverno's test table names it; absent when no rule result was (Excluded, Not found).
   */
  readonly resultRule?: string;
  /**
   * The row is not checked: the mutated resource is missing from the `patchedResources` file and the
   * entry does not say `failOnMissingResources: true`. Kyverno's test prints no row for it and counts
   * nothing; Bylaw warns with `message` instead of a row.
   */
  readonly unchecked?: true;
}

/**
 * `apiVersion/Kind/namespace/name`, Kyverno's test resource key with `/` (a cluster-scoped object's
 * namespace is empty); a payload's is `/FILE`, its file as the test file names it.
 */
function subjectOf(resource: Resource): string {
  const file = payloadFile(resource);
  if (file !== undefined) return `/${file}`;
  return `${resourceApiVersion(resource)}/${resourceKind(resource)}/${resourceNamespace(resource)}/${resourceName(resource)}`;
}

/**
 * How a row with no result names its resource: as Kyverno's table does when the resource was loaded
 * (`apiVersion/Kind/namespace/name`: it found the resource, not a result for it); undefined when
 * no loaded resource of the row's kind has that name.
 */
export function loadedSubject(
  resources: readonly Resource[],
  kind: string | undefined,
  wanted: string,
): string | undefined {
  const found = resources.find(
    (r) => (kind === undefined || kind === "" || resourceKind(r) === kind) && objectMatches(r, wanted),
  );
  return found === undefined ? undefined : subjectOf(found);
}

function bareName(policy: string): string {
  const i = policy.lastIndexOf("/");
  return i < 0 ? policy : policy.slice(i + 1);
}

function resourceMatches(response: PolicyResponse, wanted: string): boolean {
  return objectMatches(response.resource, wanted) || payloadFile(response.resource) === wanted;
}

function objectMatches(resource: Resource, wanted: string): boolean {
  const name = resourceName(resource);
  if (wanted === name) return true;
  // `namespace/name`, compared without building the string (every row checks every response).
  const ns = resourceNamespace(resource) || "default";
  return (
    wanted.length === ns.length + 1 + name.length &&
    wanted.charCodeAt(ns.length) === 47 &&
    wanted.startsWith(ns) &&
    wanted.endsWith(name)
  );
}

/** A response names `wanted` as its resource, or as the target one of its rules patched. */
function concerns(response: PolicyResponse, wanted: string): boolean {
  return (
    resourceMatches(response, wanted) ||
    response.rules.some((x) => x.patchedTarget !== undefined && objectMatches(x.patchedTarget, wanted))
  );
}

/** A mutate-existing result is found by its trigger or by the target it patched. */
function ruleConcerns(response: PolicyResponse, rule: RuleResult, wanted: string): boolean {
  return (
    resourceMatches(response, wanted) || (rule.patchedTarget !== undefined && objectMatches(rule.patchedTarget, wanted))
  );
}

/**
 * A check of what a rule produced (a patched or generated resource) before its result is compared:
 * `error` ends the row (the file could not be read); `mismatch` makes the row's actual result `fail`,
 * as Kyverno's CLI does — a row may expect exactly that.
 */
export type ResourceCheck = (response: PolicyResponse, rule: RuleResult) => ResourceProblem | undefined;
export type ResourceProblem = {
  /** `missing`: the mutated resource is not in the `patchedResources` file at all. */
  readonly kind: "error" | "mismatch" | "missing";
  readonly message: string;
};

/**
 * The responses of each policy, by name, for each list compared against: a suite compares every
 * row with the same list, so a row then looks at its policy's responses only, not at all of them.
 * The list must not change once compared against (run-suite.ts builds it once per operation).
 */
const byPolicy = new WeakMap<readonly PolicyResponse[], Map<string, PolicyResponse[]>>();

function responsesOf(responses: readonly PolicyResponse[], policy: string): readonly PolicyResponse[] {
  let index = byPolicy.get(responses);
  if (index === undefined) {
    index = new Map();
    for (const r of responses) {
      const list = index.get(r.policy.name);
      if (list === undefined) index.set(r.policy.name, [r]);
      else list.push(r);
    }
    byPolicy.set(responses, index);
  }
  return index.get(policy) ?? [];
}

/**
 * A row whose rule name is not compared: Kyverno's test CLI tells the rule-less kinds by the
 * policy's kind, not by the row's `isValidatingPolicy`-like flags (which it does not read), so a row
 * naming a rule of a ValidatingPolicy, MutatingPolicy, GeneratingPolicy, DeletingPolicy,
 * ImageValidatingPolicy or admission policy is compared whatever the rule it names. Only ClusterPolicy
 * and Policy have rules; a flag on the row still counts as Bylaw read it before.
 */
export function rulelessRow(expected: ExpectedResult, policy: CompiledPolicy): boolean {
  return policy.language !== "kyverno" || expected.anyRule === true;
}

/**
 * One verdict per resource the row's name stands for: as Kyverno's test, a row naming `x` checks
 * every resource named `x` its policy answered for, whatever the row's `kind` (a Role and a
 * ClusterRole both named `x` are two rows), each as its own (apiVersion, kind, namespace, name), in
 * the order the resources were given. None answered: one "Not found" verdict.
 */
export function compareRows(
  expected: ExpectedResult,
  resource: string,
  responses: readonly PolicyResponse[],
  check?: ResourceCheck,
): RowVerdict[] {
  const policy = bareName(expected.policy);
  const candidates = responsesOf(responses, policy).filter((r) => concerns(r, resource));
  if (candidates.length === 0)
    return [
      {
        ok: false,
        actual: null,
        reason: "Not found",
        message: `no result for policy ${policy} and resource ${resource}`,
      },
    ];
  const byObject = new Map<string, PolicyResponse[]>();
  for (const response of candidates) {
    const key = objectKey(response, resource);
    const group = byObject.get(key);
    if (group === undefined) byObject.set(key, [response]);
    else group.push(response);
  }
  return [...byObject.values()].map((group) => compareObject(expected, resource, group, check));
}

/** Which resource a response answers for the row: its own, or the mutate-existing target it patched that has the row's name. */
function objectKey(response: PolicyResponse, wanted: string): string {
  if (resourceMatches(response, wanted)) return subjectOf(response.resource);
  const target = response.rules.find((x) => x.patchedTarget !== undefined && objectMatches(x.patchedTarget, wanted));
  return target?.patchedTarget !== undefined ? subjectOf(target.patchedTarget) : subjectOf(response.resource);
}

/** The verdict of one resource's responses: a rule that disagrees wins over one that agrees; no rule at all is Excluded. */
function compareObject(
  expected: ExpectedResult,
  resource: string,
  candidates: readonly PolicyResponse[],
  check: ResourceCheck | undefined,
): RowVerdict {
  const names = new Set([expected.rule, `autogen-${expected.rule}`, `autogen-cronjob-${expected.rule}`]);
  let verdict: RowVerdict | undefined;
  let unchecked: string | undefined;
  for (const response of candidates) {
    const ruleless = rulelessRow(expected, response.policy);
    const rules = response.rules.filter((r) => (ruleless || names.has(r.rule)) && ruleConcerns(response, r, resource));
    if (rules.length === 0) {
      verdict ??= {
        ok: true,
        actual: null,
        reason: "Excluded",
        message: "Excluded",
        subject: subjectOf(response.resource),
      };
      continue;
    }
    for (const rule of rules) {
      const found = check?.(response, rule);
      // kyverno test: a mutated resource missing from patchedResources leaves the row unchecked (a
      // generated one does not); with failOnMissingResources, or generated, it is a Resource error.
      if (found?.kind === "missing" && rule.type !== "Generation" && expected.failOnMissingResources !== true) {
        unchecked = found.message;
        continue;
      }
      const problem = found?.kind === "missing" ? { ...found, kind: "error" as const } : found;
      const actual = problem?.kind === "mismatch" ? "fail" : reportResult(rule.status, response.policy.scored);
      const ok = actual === expected.result && problem?.kind !== "error";
      const reason =
        problem?.kind === "error"
          ? "Resource error"
          : ok
            ? "Ok"
            : problem?.kind === "mismatch"
              ? "Resource diff"
              : `Want ${expected.result}, got ${actual}`;
      const about = resourceMatches(response, resource) ? response.resource : (rule.patchedTarget ?? response.resource);
      const generated = rule.generated?.[0]?.resource;
      const v: RowVerdict = {
        ok,
        actual,
        reason,
        message: problem?.message ?? rule.message,
        // Kyverno's table names a generate rule's row by what it generated: `/NAME`, no apiVersion or kind.
        subject: generated !== undefined ? `/${resourceName(generated)}` : subjectOf(about),
        resultRule: rule.rule,
      };
      if (verdict === undefined || verdict.reason === "Excluded" || (verdict.ok && !ok)) verdict = v;
    }
  }
  // As Kyverno's test, a resource whose only results were not checked gives no row (not even Excluded).
  if (unchecked !== undefined && (verdict === undefined || verdict.reason === "Excluded"))
    return { ok: false, actual: null, reason: "Not checked", message: unchecked, unchecked: true };
  return verdict ?? { ok: false, actual: null, reason: "Not found", message: "no result" };
}
