/**
 * Which requests a policy needs to see, as webhook rules (Kyverno `pkg/controllers/webhook`
 * `mergeWebhook` and `collectResourceDescriptions`): the kinds its rules match (autogen rules
 * included: they are part of the compiled policy), each with the operations its match names, else
 * the defaults: CREATE, UPDATE, DELETE and CONNECT for the validating webhook, CREATE and UPDATE for
 * the mutating one. An `exclude.any` entry that names only kinds and/or operations removes those
 * operations. A generate rule adds its match kinds (all four operations) and its target and clone
 * kinds (CREATE, UPDATE, DELETE) to both webhooks.
 *
 * Kinds become resources through the built-in table (built-in-kinds.ts), and any other kind (a
 * custom resource, a wildcard kind) through the API server's discovery (`KindResolver`,
 * kube/discovered-kinds.ts): its exact group, plural, scope and subresources. What Bylaw cannot
 * narrow safely is registered wide, never left out: a kind no discovery serves (yet) becomes every
 * resource of its group, a rule without kinds every resource; `notes` says so. A namespaced policy
 * (Policy, the Namespaced CEL kinds) only ever matches objects in its namespace: its rules are
 * registered with scope Namespaced, and a cluster-scoped kind it names is not registered at all.
 */
import {
  type CompiledPolicy,
  isMutateExisting,
  isObject,
  mutateExistingRuleNames,
  type JsonValue,
  parseKindSelector,
  policyMatchOf,
  type Rule,
} from "../../engine/index.js";
import { builtInKind } from "../../kube/built-in-kinds.js";
import type { KindResource, KindSelector } from "../../kube/discovered-kinds.js";
import { addCelPolicyRules } from "./cel-webhook-rules.js";
import {
  ALL_OPERATIONS,
  type Operation,
  type RuleWithOperations,
  type Scope,
} from "../../controllers/registration/types.js";

export type WebhookKind = "validate" | "mutate";

/** The resources discovery finds for a kind selector; undefined when discovery is not available. */
export type KindResolver = (selector: KindSelector) => readonly KindResource[] | undefined;

const MUTATE_DEFAULT: readonly Operation[] = ["CREATE", "UPDATE"];
const CREATE_UPDATE_DELETE: readonly Operation[] = ["CREATE", "UPDATE", "DELETE"];

/** Resources and their operations, keyed `group|version|scope|resource`; merged across policies. */
export class RuleSet {
  private readonly entries = new Map<string, Set<Operation>>();
  readonly notes: string[] = [];

  add(group: string, version: string, scope: Scope, resource: string, ops: Iterable<Operation>): void {
    const key = [group, version, scope, resource].join("|");
    const set = this.entries.get(key) ?? new Set<Operation>();
    for (const op of ops) set.add(op);
    if (set.size > 0) this.entries.set(key, set);
  }

  get isEmpty(): boolean {
    return this.entries.size === 0;
  }

  /** Adds every entry and note of `other` (a union: the same as adding its policies here). */
  merge(other: RuleSet): void {
    for (const [key, ops] of other.entries) {
      const set = this.entries.get(key);
      if (set === undefined) this.entries.set(key, new Set(ops));
      else for (const op of ops) set.add(op);
    }
    this.notes.push(...other.notes);
  }

  /**
   * The webhook rules: resources of the same group, version, scope and operations in one rule
   * (without those a wildcard beside them covers: resourcesCovered); sorted, so equal sets give equal objects.
   */
  rules(): RuleWithOperations[] {
    const grouped = new Map<
      string,
      { group: string; version: string; scope: Scope; ops: Operation[]; resources: string[] }
    >();
    for (const [key, set] of this.entries) {
      const [group = "", version = "", scope = "*", resource = ""] = key.split("|");
      const ops = ALL_OPERATIONS.filter((o) => set.has(o));
      const gk = [group, version, scope, ops.join(",")].join("|");
      const g = grouped.get(gk) ?? { group, version, scope: scope as Scope, ops, resources: [] };
      g.resources.push(resource);
      grouped.set(gk, g);
    }
    return [...grouped.keys()].sort().map((k) => {
      const g = grouped.get(k)!;
      return {
        apiGroups: [g.group],
        apiVersions: [g.version],
        resources: withoutCovered(g.resources).sort(),
        operations: g.ops,
        scope: g.scope,
      };
    });
  }
}

/**
 * One rule's resources without those a wildcard among them already covers. The API server refuses a
 * rule that lists both (admissionregistration `validateResources`: "if '*' is present, must not
 * specify other resources without subresources", and likewise for the double wildcard beside any
 * resource, `pods/*` beside `pods/status`, and any-resource-with-subresource-y beside `pods/y`), and
 * with it the whole configuration: two policies, one on every resource and one on pods, would leave
 * every policy unregistered. The union is unchanged: `*` covers every resource without a
 * subresource, `x/*` every subresource of x, the any-resource form of y that subresource of every
 * resource, and the double wildcard everything.
 */
export function withoutCovered(resources: readonly string[]): string[] {
  if (resources.includes("*/*")) return ["*/*"];
  const all = resources.includes("*");
  const subsOf = new Set(resources.filter((r) => r.endsWith("/*")).map((r) => r.slice(0, -2)));
  const ofAll = new Set(resources.filter((r) => r.startsWith("*/")).map((r) => r.slice(2)));
  return resources.filter((r) => {
    const slash = r.indexOf("/");
    if (slash < 0) return r === "*" || !all;
    const [res, sub] = [r.slice(0, slash), r.slice(slash + 1)];
    if (res === "*" || sub === "*") return true;
    return !subsOf.has(res) && !ofAll.has(sub);
  });
}

/** Adds what one policy needs on one webhook to `into`. */
export function addPolicyRules(
  into: RuleSet,
  policy: CompiledPolicy,
  webhook: WebhookKind,
  resolve?: KindResolver,
): void {
  // A MutatingPolicy: its matchConstraints, on the mutating webhook; with mutateExisting on the validating one too
  // (its triggers' work follows an allowed review, as a mutate-existing rule's does).
  if (policy.language === "mutating") {
    if ((webhook === "mutate" || mutateExistingRuleNames(policy).length > 0) && !addCelPolicyRules(into, policy))
      into.add("*", "*", policy.namespace !== "" ? "Namespaced" : "*", "*", MUTATE_DEFAULT);
    return;
  }
  // An ImageValidatingPolicy: its matchConstraints, on the validating webhook (it verifies) and the mutating one (mutateDigest).
  if (policy.language === "image-validating") {
    const ops = webhook === "validate" ? ALL_OPERATIONS : MUTATE_DEFAULT;
    if ((webhook === "validate" || webhook === "mutate") && !addCelPolicyRules(into, policy))
      into.add("*", "*", policy.namespace !== "" ? "Namespaced" : "*", "*", ops);
    return;
  }
  // A GeneratingPolicy: its matchConstraints, on the validating webhook only (its work follows an allowed review).
  if (policy.language === "generating") {
    if (webhook === "validate" && !addCelPolicyRules(into, policy))
      into.add("*", "*", policy.namespace !== "" ? "Namespaced" : "*", "*", ALL_OPERATIONS);
    return;
  }
  // A policy that only deletes on a schedule (DeletingPolicy) sees no request.
  if (policy.phases.every((p) => p === "delete")) return;
  const match = policyMatchOf(policy);
  // A ValidatingPolicy (or a kind served as an error, by its matchConstraints): on the validating webhook only.
  if (match.language === "cel") {
    if (webhook === "validate" && !addCelPolicyRules(into, policy))
      into.add("*", "*", policy.namespace !== "" ? "Namespaced" : "*", "*", ALL_OPERATIONS);
    return;
  }
  const namespaced = policy.namespace !== "";
  // No matcher of its own: every request in its scope, on the validating webhook (its error decides).
  if (match.language === "none") {
    if (webhook === "validate") into.add("*", "*", namespaced ? "Namespaced" : "*", "*", ALL_OPERATIONS);
    return;
  }
  const where = `${policy.kind} ${namespaced ? `${policy.namespace}/` : ""}${policy.name}`;
  for (const compiled of match.rules) {
    const rule = compiled.rule;
    const kinds = new Map<string, Set<Operation>>();
    if (rule.generate !== undefined) {
      collect(rule, ALL_OPERATIONS, kinds);
      for (const kind of generatedKinds(rule.generate)) addOps(kinds, kind, CREATE_UPDATE_DELETE);
    } else if (needs(compiled.rule, isMutateExisting(compiled), webhook)) {
      collect(rule, webhook === "validate" ? ALL_OPERATIONS : MUTATE_DEFAULT, kinds);
    } else {
      continue;
    }
    if (kinds.size === 0) {
      into.notes.push(`${where} rule ${JSON.stringify(compiled.name)} names no kinds: every resource is registered`);
      into.add(
        "*",
        "*",
        namespaced ? "Namespaced" : "*",
        "*",
        webhook === "validate" ? ALL_OPERATIONS : MUTATE_DEFAULT,
      );
      continue;
    }
    for (const [kind, ops] of kinds) addKind(into, { selector: kind, ops, namespaced, where, resolve });
  }
}

function needs(rule: Rule, mutateExisting: boolean, webhook: WebhookKind): boolean {
  if (rule.verifyImages !== undefined) return true;
  if (webhook === "validate") return rule.validate !== undefined || mutateExisting;
  return rule.mutate !== undefined && !mutateExisting;
}

/** The kinds of match (legacy resources, all, any) with their operations, less what exclude.any removes. */
function collect(rule: Rule, defaults: readonly Operation[], out: Map<string, Set<Operation>>): void {
  const match = rule.match;
  const descriptions = [
    match?.resources,
    ...(match?.all ?? []).map((f) => f.resources),
    ...(match?.any ?? []).map((f) => f.resources),
  ];
  for (const d of descriptions) {
    if (d === undefined) continue;
    const ops = operationsOf(d.operations) ?? defaults;
    for (const kind of d.kinds ?? []) addOps(out, kind, ops);
  }
  for (const f of rule.exclude?.any ?? []) {
    const d = f.resources;
    if (f.subjects !== undefined || f.roles !== undefined || f.clusterRoles !== undefined || d === undefined) continue;
    if (
      d.name !== undefined ||
      d.names !== undefined ||
      d.namespaces !== undefined ||
      d.annotations !== undefined ||
      d.selector !== undefined ||
      d.namespaceSelector !== undefined
    )
      continue;
    const ops = operationsOf(d.operations) ?? ALL_OPERATIONS;
    const kinds = d.kinds !== undefined && d.kinds.length > 0 ? d.kinds : [...out.keys()];
    for (const kind of kinds) for (const op of ops) out.get(kind)?.delete(op);
  }
  for (const [kind, ops] of out) if (ops.size === 0) out.delete(kind);
}

function operationsOf(ops: readonly string[] | undefined): Operation[] | undefined {
  if (ops === undefined || ops.length === 0) return undefined;
  return ALL_OPERATIONS.filter((o) => ops.includes(o));
}

function addOps(out: Map<string, Set<Operation>>, kind: string, ops: Iterable<Operation>): void {
  const set = out.get(kind) ?? new Set<Operation>();
  for (const op of ops) set.add(op);
  out.set(kind, set);
}

/** generate.kind, generate.cloneList.kinds, and the same in each generate.foreach entry. */
function generatedKinds(generate: { readonly [k: string]: JsonValue }): string[] {
  const out: string[] = [];
  const one = (g: JsonValue | undefined): void => {
    if (!isObject(g)) return;
    if (typeof g["kind"] === "string" && g["kind"] !== "") out.push(g["kind"]);
    else if (isObject(g["cloneList"]) && Array.isArray(g["cloneList"]["kinds"]))
      out.push(...g["cloneList"]["kinds"].filter((k): k is string => typeof k === "string"));
  };
  one(generate);
  if (Array.isArray(generate["foreach"])) generate["foreach"].forEach(one);
  return out;
}

interface KindEntry {
  readonly selector: string;
  readonly ops: Set<Operation>;
  readonly namespaced: boolean;
  readonly where: string;
  readonly resolve: KindResolver | undefined;
}

/** One kind selector as webhook rule entries (Kyverno `ParseKindSelector`, then discovery). */
function addKind(into: RuleSet, entry: KindEntry): void {
  const { selector, ops, namespaced, where, resolve } = entry;
  const s = parseKindSelector(selector);
  const policyScope: Scope = namespaced ? "Namespaced" : "*";
  const withSub = (resource: string): string => (s.subresource === "" ? resource : `${resource}/${s.subresource}`);
  if (s.kind === "") {
    into.notes.push(
      `${where}: kind ${JSON.stringify(selector)} is not a kind selector; every resource is registered for it`,
    );
    into.add("*", "*", policyScope, "*/*", ops);
    into.add("*", "*", policyScope, "*", ops);
    return;
  }
  if (s.kind === "*") {
    into.add(s.group, s.version, policyScope, withSub("*"), ops);
    return;
  }
  const known = /[*?]/.test(s.kind) ? undefined : builtInKind(s.kind);
  if (known === undefined || (s.group !== "*" && s.group !== known.group)) {
    const found = resolve?.(s)?.filter((r) => r.namespaced || !namespaced);
    if (found !== undefined && found.length > 0) {
      for (const r of found) into.add(r.group, s.version, r.namespaced ? "Namespaced" : "Cluster", r.resource, ops);
      return;
    }
    const group = s.group;
    const why =
      found === undefined
        ? "is not a built-in kind Bylaw knows and discovery was not read"
        : "is served by no resource the API server's discovery lists (yet)";
    into.notes.push(
      `${where}: kind ${JSON.stringify(selector)} ${why}; every resource of ${group === "*" ? "every group" : `group ${JSON.stringify(group)}`} is registered for it`,
    );
    into.add(group, s.version, policyScope, "*", ops);
    if (s.subresource !== "") into.add(group, s.version, policyScope, "*/*", ops);
    return;
  }
  // A namespaced policy matches objects of its own namespace only: a cluster-scoped kind is never registered for it.
  if (namespaced && !known.namespaced) return;
  const scope: Scope = known.namespaced ? "Namespaced" : "Cluster";
  into.add(known.group, s.version, scope, withSub(known.resource), ops);
  if (s.subresource === "*") into.add(known.group, s.version, scope, known.resource, ops);
  // A bare `Pod` also matches the pods/ephemeralcontainers subresource (kyverno-behaviour.md §3.3).
  if (known.resource === "pods" && s.subresource === "")
    into.add(known.group, s.version, scope, "pods/ephemeralcontainers", ops);
  // A kind named without its group also matches a custom resource of the same kind in another group
  // (a Knative `Service`): discovery adds those (the built-in one again is merged away).
  if (s.group === "*")
    for (const r of resolve?.(s) ?? [])
      if (r.namespaced || !namespaced)
        into.add(r.group, s.version, r.namespaced ? "Namespaced" : "Cluster", r.resource, ops);
}
