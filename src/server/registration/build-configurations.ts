/**
 * The webhook configurations Bylaw registers for a loaded policy set (Kyverno
 * `pkg/controllers/webhook/controller.go`; kyverno-behaviour.md §8.2), as plain objects ready for
 * server-side apply:
 *
 * - `bylaw-resource-validating-webhook-cfg` and `bylaw-resource-mutating-webhook-cfg`: per timeout
 *   group (webhook-groups.ts) a `-fail` and an `-ignore` webhook on the paths `bylaw serve` serves,
 *   each with the rules its policies need (webhook-rules.ts). A webhook no policy needs is left out,
 *   as Kyverno does; with no policies the configurations hold no webhooks at all.
 * - a policy with `webhookConfiguration.matchConditions` is left out of those and gets its own
 *   ("fine-grained") webhook in the same configurations, as Kyverno registers it:
 *   `validate.bylaw.svc-fail-finegrained-<ns>-<name>` on `/validate/fail/finegrained/<ns>/<name>`
 *   (webhook-groups.ts), with its own timeout and rules, and the policy's matchConditions in place of
 *   the shared ones, so the API server sends it only what they select. (`bylaw serve` with
 *   `--register` serves those paths; `groups.fineGrained`.) A policies.kyverno.io policy with
 *   matchConditions, `matchPolicy: Exact` or a webhook timeout gets one as well,
 *   `vpol.validate.bylaw.svc-fail-finegrained-<name>` on `/vpol/fail/finegrained/<name>`, carrying
 *   its conditions, matchPolicy, timeout and its namespace and object selectors merged with Bylaw's
 *   (cel-webhook-traits.ts); a namespaced one also selects only its own namespace.
 * - every name stays one the API server accepts (kube-names.ts): a fine-grained webhook name past
 *   253 characters, or one that two policies' keys would share (`<ns>-<name>` reads alike for
 *   namespace `a-b`, name `c` and namespace `a`, name `b-c`), gets a hash of its policy's key, so one
 *   policy never makes the API server refuse a configuration that registers every other.
 * - `bylaw-policy-validating-webhook-cfg`: kyverno.io ClusterPolicy, Policy and PolicyException,
 *   and the policies.kyverno.io policy kinds (kube/cel-policy-kinds.ts), CREATE/UPDATE →
 *   /policyvalidate, failurePolicy Fail, whatever policies are loaded.
 * - with `target.names` "kyverno" (`--kyverno-webhook-names`), Kyverno's names for all of these
 *   (webhook-names.ts).
 *
 * Every resource webhook excludes Bylaw's own namespace and the system namespaces (namespaceSelector)
 * and carries the matchConditions deploy/base shipped (events, nodes, leases, reviews, replicasets,
 * bindings: high-volume objects Kyverno's resourceFilters skip). `request.subResource` is absent
 * from a request without one, so it is read behind `has()`: unguarded, the API server fails the
 * condition, and a Fail webhook then refuses every Pod.
 */
import { type CompiledPolicy, isObject, textOf } from "../../engine/index.js";
import { CEL_GROUP, CEL_POLICY_KINDS } from "../../kube/cel-policy-kinds.js";
import { celWebhookTraits, type MatchCondition } from "../admission/cel-webhook-traits.js";
import { appliesAtAdmission, hasOwnWebhook } from "../admission/policy-traits.js";
import {
  fineGrainedGroup,
  groupOf,
  groupPath,
  registeredGroups,
  type TimeoutGroups,
} from "../admission/webhook-groups.js";
import type { WebhookGroup } from "../admission/types.js";
import { distinctNames, hashedWebhookName } from "../admission/kube-names.js";
import type {
  ClientConfig,
  Configurations,
  Endpoint,
  LabelSelector,
  RegistrationTarget,
  Webhook,
  WebhookConfiguration,
} from "../../controllers/registration/types.js";
import { type KindResolver, RuleSet, type WebhookKind } from "./webhook-rules.js";
import { PolicyRules } from "./policy-rules.js";
import { configurationNames, policyWebhookName, resourceWebhookName } from "./webhook-names.js";

const LABELS = {
  "app.kubernetes.io/name": "bylaw",
  "app.kubernetes.io/component": "webhook-configuration",
  "webhook.bylaw.dev/managed-by": "bylaw",
} as const;

const SYSTEM_NAMESPACES = ["kube-system", "kube-public", "kube-node-lease"];

/** deploy/base's matchConditions: kinds no policy should hold hostage to the webhook's availability. */
export const MATCH_CONDITIONS: readonly { readonly name: string; readonly expression: string }[] = [
  {
    name: "exclude-events",
    expression:
      '!(request.resource.resource == "events" && (request.resource.group == "" || request.resource.group == "events.k8s.io"))',
  },
  {
    name: "exclude-nodes-and-leases",
    expression:
      '!((request.resource.group == "" && request.resource.resource == "nodes") || (request.resource.group == "coordination.k8s.io" && request.resource.resource == "leases"))',
  },
  {
    name: "exclude-reviews-and-apiservices",
    expression:
      '!(request.resource.group in ["authentication.k8s.io", "authorization.k8s.io", "apiregistration.k8s.io"])',
  },
  {
    name: "exclude-replicasets-and-bindings",
    expression:
      '!((request.resource.group == "apps" && request.resource.resource == "replicasets") || (request.resource.group == "" && request.resource.resource == "bindings") || (request.resource.resource == "pods" && has(request.subResource) && request.subResource == "binding"))',
  },
];

/**
 * Requests no policy may hold hostage, on every resource webhook: the deletion of Bylaw's own
 * cluster-scoped objects (its ClusterRoles and ClusterRoleBindings, all named `bylaw:…`; the rest of
 * its objects live in its namespace, which no webhook covers, and webhook configurations are never
 * sent to webhooks), so Bylaw can always be uninstalled.
 */
export const OWN_OBJECTS_CONDITION: MatchCondition = {
  name: "exclude-bylaw-own-objects",
  expression:
    '!(request.operation == "DELETE" && request.resource.group == "rbac.authorization.k8s.io" && (request.resource.resource == "clusterroles" || request.resource.resource == "clusterrolebindings") && request.name.startsWith("bylaw:"))',
};

/**
 * On the webhooks of namespaced policies only: deletions by the cluster's controllers (the namespace
 * controller emptying a namespace being deleted, the garbage collector). A tenant's policy may not
 * stop its namespace from being deleted, nor hold it in Terminating while Bylaw is down.
 */
export const TENANT_CONDITION: MatchCondition = {
  name: "exclude-controller-deletes",
  expression:
    '!(request.operation == "DELETE" && (request.userInfo.username == "system:kube-controller-manager" || request.userInfo.username.startsWith("system:serviceaccount:kube-system:")))',
};

/** A policy's identity in registration: `<kind>/<namespace>/<name>`, the kind as written (ClusterPolicy, ValidatingPolicy, …). */
export function policyIdOf(policy: CompiledPolicy): string {
  return `${policy.kind}/${policy.namespace}/${policy.name}`;
}

interface Built {
  readonly webhook: Webhook;
  readonly policies: readonly string[];
}

interface BuildContext {
  readonly policies: readonly CompiledPolicy[];
  readonly groups: TimeoutGroups;
  readonly target: RegistrationTarget;
  readonly rules: PolicyRules;
  readonly notes: string[];
}

/**
 * `resolve` finds the resources of kinds the built-in table does not know (discovery); without it
 * they are registered wide. Given a `PolicyRules` (which holds the resolver), each policy's rules are
 * worked out only the first time it is seen (policy-rules.ts): the configurations are the same.
 */
export function buildConfigurations(
  policies: readonly CompiledPolicy[],
  groups: TimeoutGroups,
  target: RegistrationTarget,
  resolve?: KindResolver | PolicyRules,
): Configurations {
  const rules = resolve instanceof PolicyRules ? resolve : new PolicyRules(resolve);
  const ctx: BuildContext = { policies, groups, target, rules, notes: [] };
  const validating = webhooksOf(ctx, "validate");
  const mutating = webhooksOf(ctx, "mutate");
  const names = configurationNames(target.names);
  const owners = new Map([
    [names.validating, new Map(validating.map((b) => [b.webhook.name, b.policies]))],
    [names.mutating, new Map(mutating.map((b) => [b.webhook.name, b.policies]))],
  ]);
  return {
    validating: configuration(
      "ValidatingWebhookConfiguration",
      names.validating,
      validating.map((b) => b.webhook),
    ),
    mutating: configuration(
      "MutatingWebhookConfiguration",
      names.mutating,
      mutating.map((b) => b.webhook),
    ),
    policyValidating: configuration("ValidatingWebhookConfiguration", names.policyValidating, [
      policyWebhook(groups, target),
    ]),
    notes: ctx.notes,
    owners,
    policies: policies.map(policyIdOf),
  };
}

/** The rules `chosen` need on one webhook kind; their notes go to the context's. */
function rulesOf(ctx: BuildContext, chosen: readonly CompiledPolicy[], kind: WebhookKind): RuleSet {
  const rules = new RuleSet();
  for (const policy of chosen) rules.merge(ctx.rules.of(policy, kind));
  for (const n of rules.notes) if (!ctx.notes.includes(n)) ctx.notes.push(n);
  return rules;
}

/**
 * The group webhooks (per failurePolicy and timeout), then the policies' own. With `--register`
 * (groups.fineGrained) the shared group webhooks carry the cluster-wide policies only, and each
 * namespace with namespaced policies gets its group webhooks of its own, limited to it.
 */
function webhooksOf(ctx: BuildContext, kind: WebhookKind): Built[] {
  const out: Built[] = [];
  const shared = ctx.policies.filter((p) => appliesAtAdmission(p) && !hasOwnWebhook(p));
  const perNamespace = ctx.groups.fineGrained === true;
  const namespaces = perNamespace ? [...new Set(shared.map((p) => p.namespace).filter((n) => n !== ""))].sort() : [];
  for (const group of registeredGroups(ctx.groups)) {
    const inGroup = shared.filter((p) => sameGroup(groupOf(p, ctx.groups), group));
    const cluster = perNamespace ? inGroup.filter((p) => p.namespace === "") : inGroup;
    const rules = rulesOf(ctx, cluster, kind);
    if (!rules.isEmpty)
      out.push({
        webhook: resourceWebhook(kind, group, rules, ctx.target, {
          matchConditions: [...MATCH_CONDITIONS, OWN_OBJECTS_CONDITION],
        }),
        policies: cluster.map(policyIdOf),
      });
    for (const ns of namespaces) {
      const mine = inGroup.filter((p) => p.namespace === ns);
      const nsRules = rulesOf(ctx, mine, kind);
      if (nsRules.isEmpty) continue;
      const fields = {
        matchConditions: [...MATCH_CONDITIONS, OWN_OBJECTS_CONDITION, TENANT_CONDITION],
        ownNamespace: ns,
      };
      out.push({
        webhook: resourceWebhook(kind, { ...group, namespace: ns }, nsRules, ctx.target, fields),
        policies: mine.map(policyIdOf),
      });
    }
  }
  return [...out, ...ownWebhooks(ctx, kind)];
}

/** The webhooks of the policies that have their own (fine-grained), with names kept distinct. */
function ownWebhooks(ctx: BuildContext, kind: WebhookKind): Built[] {
  const own: { readonly webhook: Webhook; readonly key: string; readonly id: string }[] = [];
  for (const policy of ctx.policies) {
    if (!appliesAtAdmission(policy) || !hasOwnWebhook(policy)) continue;
    const rules = rulesOf(ctx, [policy], kind);
    const group = fineGrainedGroup(policy, ctx.groups);
    if (!rules.isEmpty)
      own.push({
        webhook: resourceWebhook(kind, group, rules, ctx.target, ownFields(policy)),
        key: `${group.prefix ?? kind}/${group.policy ?? ""}`,
        id: policyIdOf(policy),
      });
  }
  // `<ns>-<name>` can read alike for two policies (ns a-b name c, ns a name b-c): the API server refuses duplicate names.
  const names = distinctNames(
    own,
    (o) => o.webhook.name,
    (o) => hashedWebhookName(o.webhook.name, o.key),
  );
  return own.map((o, i) => ({ webhook: { ...o.webhook, name: names[i] ?? o.webhook.name }, policies: [o.id] }));
}

/** What a policy's own webhook carries beyond its rules: its matchConditions (the compiled policy checked them), and a CEL policy's matchPolicy and selectors. */
interface WebhookFields {
  readonly matchConditions: readonly MatchCondition[];
  readonly exact?: boolean;
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  /** A namespaced policy (or a namespace's group webhook): only requests in that namespace. */
  readonly ownNamespace?: string;
}

function ownFields(policy: CompiledPolicy): WebhookFields {
  const added = [OWN_OBJECTS_CONDITION, ...(policy.namespace !== "" ? [TENANT_CONDITION] : [])];
  const cel = celWebhookTraits(policy);
  if (cel !== undefined) {
    return {
      matchConditions: [...cel.matchConditions, ...added],
      exact: cel.exact,
      ...(cel.namespaceSelector !== undefined ? { namespaceSelector: cel.namespaceSelector } : {}),
      ...(cel.objectSelector !== undefined ? { objectSelector: cel.objectSelector } : {}),
      ...(policy.namespace !== "" ? { ownNamespace: policy.namespace } : {}),
    };
  }
  const list =
    policy.language === "kyverno" ? policy.document.spec.webhookConfiguration?.["matchConditions"] : undefined;
  return {
    matchConditions: [
      ...(Array.isArray(list)
        ? list.filter(isObject).map((c) => ({ name: textOf(c["name"]), expression: textOf(c["expression"]) }))
        : []),
      ...added,
    ],
    ...(policy.namespace !== "" ? { ownNamespace: policy.namespace } : {}),
  };
}

/** Both selectors' labels and expressions (Kyverno's `mergeLabelSelectors`): a request must satisfy both. */
function merged(a: LabelSelector, b: LabelSelector | undefined): LabelSelector {
  if (b === undefined) return a;
  const matchLabels = { ...(b.matchLabels ?? {}), ...(a.matchLabels ?? {}) };
  return {
    ...(Object.keys(matchLabels).length > 0 ? { matchLabels } : {}),
    matchExpressions: [...(a.matchExpressions ?? []), ...(b.matchExpressions ?? [])],
  };
}

function sameGroup(a: WebhookGroup, b: WebhookGroup): boolean {
  return a.mode === b.mode && a.timeoutSeconds === b.timeoutSeconds;
}

function configuration(kind: WebhookConfiguration["kind"], name: string, webhooks: Webhook[]): WebhookConfiguration {
  return { apiVersion: "admissionregistration.k8s.io/v1", kind, metadata: { name, labels: { ...LABELS } }, webhooks };
}

function resourceWebhook(
  kind: WebhookKind,
  group: WebhookGroup,
  rules: RuleSet,
  target: RegistrationTarget,
  fields: WebhookFields,
): Webhook {
  const excluded = [...new Set([...SYSTEM_NAMESPACES, target.ownNamespace])];
  const own: LabelSelector = {
    matchExpressions: [
      { key: "kubernetes.io/metadata.name", operator: "NotIn", values: excluded },
      ...(fields.ownNamespace !== undefined
        ? [{ key: "kubernetes.io/metadata.name", operator: "In", values: [fields.ownNamespace] }]
        : []),
    ],
  };
  return {
    name: resourceWebhookName(kind, group, target.names),
    admissionReviewVersions: ["v1"],
    clientConfig: clientConfig(target.endpoint, groupPath(kind, group), target.caPem),
    failurePolicy: group.mode === "fail" ? "Fail" : "Ignore",
    matchPolicy: fields.exact === true ? "Exact" : "Equivalent",
    sideEffects: kind === "mutate" ? "NoneOnDryRun" : "None",
    timeoutSeconds: group.timeoutSeconds,
    ...(kind === "mutate" ? { reinvocationPolicy: "IfNeeded" as const } : {}),
    namespaceSelector: merged(own, fields.namespaceSelector),
    ...(fields.objectSelector !== undefined ? { objectSelector: fields.objectSelector } : {}),
    matchConditions: fields.matchConditions,
    rules: rules.rules(),
  };
}

function policyWebhook(groups: TimeoutGroups, target: RegistrationTarget): Webhook {
  return {
    name: policyWebhookName(target.names),
    admissionReviewVersions: ["v1"],
    clientConfig: clientConfig(target.endpoint, "/policyvalidate", target.caPem),
    failurePolicy: "Fail",
    matchPolicy: "Equivalent",
    sideEffects: "None",
    timeoutSeconds: groups.defaultSeconds,
    rules: [
      {
        apiGroups: ["kyverno.io"],
        apiVersions: ["*"],
        resources: ["clusterpolicies", "policies", "policyexceptions", "cleanuppolicies", "clustercleanuppolicies"],
        operations: ["CREATE", "UPDATE"],
        scope: "*",
      },
      {
        apiGroups: [CEL_GROUP],
        apiVersions: ["*"],
        resources: [...CEL_POLICY_KINDS.map((k) => k.gvr.resource), "policyexceptions"],
        operations: ["CREATE", "UPDATE"],
        scope: "*",
      },
    ],
  };
}

function clientConfig(endpoint: Endpoint, path: string, caPem: string): ClientConfig {
  const caBundle = Buffer.from(caPem, "utf8").toString("base64");
  if (endpoint.kind === "url") return { url: `${endpoint.base.replace(/\/+$/, "")}${path}`, caBundle };
  return { service: { name: endpoint.name, namespace: endpoint.namespace, path, port: endpoint.port }, caBundle };
}
