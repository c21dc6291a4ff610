/**
 * Which webhook path serves which policy. Kyverno registers a `-fail` and an `-ignore` webhook per
 * configuration (`/validate/fail`, `/validate/ignore`, `/mutate/fail`, `/mutate/ignore`), each
 * serving the policies of that failurePolicy, and rebuilds them whenever policies change: each
 * webhook's timeout is the largest its policies ask for (`webhookConfiguration.timeoutSeconds`,
 * else the deprecated `spec.webhookTimeoutSeconds`; at least the default of 10 s, capped at 30;
 * pkg/controllers/webhook). Bylaw's webhooks are static manifests, so a policy can only run under
 * the timeout it asks for if a webhook with that timeout is registered. Policies are therefore
 * grouped by failurePolicy AND timeout:
 *
 *   the default timeout (`--timeout-seconds`, 10)  /validate/fail, /validate/ignore, /mutate/fail, /mutate/ignore
 *   any other timeout N (`--timeout-group N`)      /validate/fail/timeout-Ns, …/ignore/timeout-Ns, /mutate/…
 *
 * With `--register`, a policy with `webhookConfiguration.matchConditions` gets its own
 * ("fine-grained") webhook, as Kyverno registers it (`pkg/controllers/webhook`, `webhookNameAndPath`):
 *
 *   validate.bylaw.svc-fail-finegrained-<ns>-<name>   /validate/fail/finegrained/<ns>/<name>
 *
 * (`<name>` alone for a ClusterPolicy; `ignore` for an Ignore policy; the same under /mutate), with
 * the policy's own timeout; the shared paths then leave that policy out. A policies.kyverno.io
 * policy with matchConditions, `matchPolicy: Exact` or a webhook timeout gets one too
 * (cel-webhook-traits.ts), named with its kind's short name as Kyverno names it:
 *
 *   vpol.validate.bylaw.svc-fail-finegrained-<name>          /vpol/fail/finegrained/<name>
 *   nvpol.validate.bylaw.svc-fail-finegrained-<ns>-<name>    /nvpol/fail/finegrained/<ns>/<name>
 *
 * (mpol, nmpol, ivpol, nivpol likewise; always on the validating configuration, where Bylaw answers
 * them). Kyverno's path is `/vpol/<name>` and its name leaves a namespaced policy's namespace out;
 * Bylaw keeps the failurePolicy in the path and the namespace in both, so two namespaces' policies
 * of one name never share a webhook.
 *
 * With `--register`, the namespaced policies (Policy, the Namespaced CEL kinds) of each namespace are
 * registered apart, per group, so that a tenant's policy never widens a webhook beyond its namespace:
 *
 *   validate.bylaw.svc-fail-ns-<ns>   /validate/fail/ns/<ns>   (…-timeout-Ns-ns-<ns>, /validate/fail/timeout-Ns/ns/<ns>)
 *
 * and the shared paths then serve the cluster-wide policies only.
 *
 * A review is evaluated under the deadline of the path it came in on (80% of that group's timeout).
 * A policy whose group is not registered would never be evaluated: the policy set is rejected
 * (`timeoutProblems`), loudly, rather than serving it nowhere.
 */
import { type CompiledPolicy, type PolicyProblem, problem } from "../../engine/index.js";
import { CEL_PREFIXES, celPrefixOf } from "./cel-webhook-traits.js";
import { webhookName } from "./kube-names.js";
import {
  declaredTimeout,
  failurePolicyOf,
  hasOwnWebhook,
  isValidTimeout,
  MAX_TIMEOUT_SECONDS,
  MIN_TIMEOUT_SECONDS,
  policyKey,
} from "./policy-traits.js";
import type { WebhookGroup } from "./types.js";

/** Kyverno's default webhook timeout (`--webhookTimeout`). */
export const DEFAULT_TIMEOUT_SECONDS = 10;
/** The share of a webhook's timeout a review may use before it is answered per failurePolicy. */
export const DEADLINE_SHARE = 0.8;

/** The timeout groups that have registered webhooks: the default one, and any others. */
export interface TimeoutGroups {
  readonly defaultSeconds: number;
  /** Further registered timeouts (each with its own fail and ignore webhooks), none equal to the default. */
  readonly extra: readonly number[];
  /** Fine-grained webhooks are registered (`--register`): policies with matchConditions are served on their own paths only. */
  readonly fineGrained?: boolean;
}

export const DEFAULT_GROUPS: TimeoutGroups = { defaultSeconds: DEFAULT_TIMEOUT_SECONDS, extra: [] };

export type WebhookKind = "validate" | "mutate";

/** The timeout a policy runs under: the one it sets, else the default. */
export function timeoutOf(policy: CompiledPolicy, groups: TimeoutGroups): number {
  const declared = declaredTimeout(policy);
  return declared !== undefined && isValidTimeout(declared.value) ? declared.value : groups.defaultSeconds;
}

/** The group a policy belongs to. */
export function groupOf(policy: CompiledPolicy, groups: TimeoutGroups): WebhookGroup {
  const timeoutSeconds = timeoutOf(policy, groups);
  return {
    mode: failurePolicyOf(policy) === "Ignore" ? "ignore" : "fail",
    timeoutSeconds,
    isDefault: timeoutSeconds === groups.defaultSeconds,
  };
}

/** The path of a group's webhook: `/validate/fail` for the default timeout, `/validate/fail/timeout-20s` for another. */
export function groupPath(kind: WebhookKind, group: WebhookGroup): string {
  const base = `/${group.policy !== undefined && group.prefix !== undefined ? group.prefix : kind}/${group.mode}`;
  if (group.policy !== undefined) return `${base}${FINE_GRAINED}/${group.policy}`;
  const timed = group.isDefault ? base : `${base}/timeout-${group.timeoutSeconds}s`;
  return group.namespace !== undefined ? `${timed}${NAMESPACE}/${group.namespace}` : timed;
}

const NAMESPACE = "/ns";
const NAMESPACE_PATH =
  /^\/(?<kind>validate|mutate)\/(?<mode>fail|ignore)(?:\/timeout-(?<timeout>[0-9]{1,2})s)?\/ns\/(?<namespace>[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)$/;

/** The group of a namespace's path (`/validate/fail/ns/tenant-a`, `/mutate/ignore/timeout-20s/ns/tenant-a`), or undefined. */
export function parseNamespacePath(
  path: string,
  groups: TimeoutGroups,
): { readonly kind: WebhookKind; readonly group: WebhookGroup } | undefined {
  const g = NAMESPACE_PATH.exec(path)?.groups;
  if (g === undefined) return undefined;
  const timeoutSeconds = g["timeout"] !== undefined ? Number(g["timeout"]) : groups.defaultSeconds;
  return {
    kind: g["kind"] as WebhookKind,
    group: {
      mode: g["mode"] as WebhookGroup["mode"],
      timeoutSeconds,
      isDefault: g["timeout"] === undefined,
      fineGrained: true,
      namespace: g["namespace"] ?? "",
    },
  };
}

const FINE_GRAINED = "/finegrained";
const FINE_GRAINED_PATH = new RegExp(
  `^/(?<kind>validate|mutate|${CEL_PREFIXES.join("|")})/`.concat(
    /(?<mode>fail|ignore)\/finegrained\/(?<policy>[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?(?:\/[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)?)$/
      .source,
  ),
);

/** The fine-grained group of a policy that has its own webhook: its failurePolicy and timeout, and its key. */
export function fineGrainedGroup(policy: CompiledPolicy, groups: TimeoutGroups): WebhookGroup {
  const prefix = celPrefixOf(policy);
  return { ...groupOf(policy, groups), policy: policyKey(policy, "/"), ...(prefix !== undefined ? { prefix } : {}) };
}

/**
 * The kind, mode and policy key of a fine-grained path (`/validate/fail/finegrained/ns/name`), or
 * undefined; a CEL kind's path (`/vpol/fail/finegrained/name`) is a validate path with its prefix
 * (a MutatingPolicy's, `/mpol/…`, a mutate path).
 */
export function parseFineGrainedPath(path: string):
  | {
      readonly kind: WebhookKind;
      readonly mode: WebhookGroup["mode"];
      readonly policy: string;
      readonly prefix?: string;
    }
  | undefined {
  const g = FINE_GRAINED_PATH.exec(path)?.groups;
  if (g === undefined) return undefined;
  const first = g["kind"] ?? "";
  const mode = g["mode"] as WebhookGroup["mode"];
  if (first === "validate" || first === "mutate") return { kind: first, mode, policy: g["policy"] ?? "" };
  // A MutatingPolicy's own webhook (`/mpol/…`) is a mutating one, whatever Kyverno's "validate" in its name.
  const kind = first === "mpol" || first === "nmpol" ? "mutate" : "validate";
  return { kind, mode, policy: g["policy"] ?? "", prefix: first };
}

/** The webhook name Kyverno's scheme gives a group: `validate.bylaw.svc-fail`, `validate.bylaw.svc-fail-timeout-20s`. */
export function groupWebhookName(kind: WebhookKind, group: WebhookGroup): string {
  const base = `${group.policy !== undefined && group.prefix !== undefined ? `${group.prefix}.validate` : kind}.bylaw.svc-${group.mode}`;
  // Kyverno's fine-grained name, unless a long policy name (and namespace) would take it past the
  // API server's limit (a DNS subdomain, 253): then its first part and a hash of the policy's key (kube-names.ts).
  if (group.policy !== undefined)
    return webhookName(`${base}-finegrained-${group.policy.replace("/", "-")}`, group.policy);
  const timed = group.isDefault ? base : `${base}-timeout-${group.timeoutSeconds}s`;
  return group.namespace !== undefined ? webhookName(`${timed}-ns-${group.namespace}`, group.namespace) : timed;
}

/** Every registered group: fail and ignore for the default timeout and for each further one. */
export function registeredGroups(groups: TimeoutGroups): WebhookGroup[] {
  const out: WebhookGroup[] = [];
  for (const timeoutSeconds of [groups.defaultSeconds, ...groups.extra]) {
    for (const mode of ["fail", "ignore"] as const)
      out.push({
        mode,
        timeoutSeconds,
        isDefault: timeoutSeconds === groups.defaultSeconds,
        ...(groups.fineGrained === true ? { fineGrained: true } : {}),
      });
  }
  return out;
}

/**
 * Why a policy cannot be served by the registered webhooks: its timeout's group has no registered
 * webhook. Empty when it can be. (A timeout outside 1–30 s never compiles: policy/check-deprecated.ts.)
 */
export function timeoutProblems(policy: CompiledPolicy, groups: TimeoutGroups): PolicyProblem[] {
  const declared = declaredTimeout(policy);
  if (declared === undefined) return [];
  // A policy with its own webhook registers its own timeout.
  if (groups.fineGrained === true && hasOwnWebhook(policy)) return [];
  const { value, field } = declared;
  if (typeof value !== "number" || value === groups.defaultSeconds || groups.extra.includes(value)) return [];
  const group = groupOf(policy, groups);
  return [
    problem(
      field,
      `no webhook is registered for the ${value}s timeout, so this policy would never be evaluated: register ${groupWebhookName("validate", group)} (path ${groupPath("validate", group)}) and ` +
        `${groupWebhookName("mutate", group)} (path ${groupPath("mutate", group)}) with timeoutSeconds: ${value} and run bylaw serve with --timeout-group ${value} (see deploy/README.md), ` +
        `or remove ${field} to use the default of ${groups.defaultSeconds}s`,
    ),
  ];
}

/**
 * With `--register` Bylaw writes its webhook configurations itself, so, as Kyverno, it serves every
 * timeout a policy may ask for (1–30 s) and registers a group's webhooks only when a loaded policy
 * is in it (empty groups are not written): no `--timeout-group` is needed.
 */
export function withEveryTimeout(groups: TimeoutGroups): TimeoutGroups {
  const extra: number[] = [];
  for (let n = MIN_TIMEOUT_SECONDS; n <= MAX_TIMEOUT_SECONDS; n++) if (n !== groups.defaultSeconds) extra.push(n);
  return { ...groups, extra };
}

/** Checks `--timeout-seconds` and `--timeout-group` values; a message naming the flag, or undefined. */
export function checkTimeoutGroups(groups: TimeoutGroups): string | undefined {
  if (!isValidTimeout(groups.defaultSeconds))
    return `--timeout-seconds must be a whole number from ${MIN_TIMEOUT_SECONDS} to ${MAX_TIMEOUT_SECONDS} (got ${String(groups.defaultSeconds)})`;
  for (const n of groups.extra) {
    if (!isValidTimeout(n))
      return `--timeout-group must be a whole number from ${MIN_TIMEOUT_SECONDS} to ${MAX_TIMEOUT_SECONDS} (got ${String(n)})`;
    if (n === groups.defaultSeconds) return `--timeout-group ${n} is the default timeout (--timeout-seconds) already`;
  }
  return undefined;
}
