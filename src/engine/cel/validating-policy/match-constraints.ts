/**
 * A ValidatingPolicy's `matchConstraints` (Kubernetes MatchResources), compiled once: resourceRules
 * and excludeResourceRules (apiGroups, apiVersions, resources with subresources, operations,
 * resourceNames), namespaceSelector and objectSelector, as the API server matches them. A request
 * names a kind; rules name resources: a kind Bylaw cannot name (resource-names.ts) matches a rule
 * naming its guessed resource (as Kyverno's CLI guesses), and is otherwise `unknown`, never silently
 * unmatched (an `error` verdict naming it).
 */
import { isObject, type JsonObject, type JsonValue } from "../../api/json.js";
import type { LabelSelector } from "../../api/policy.js";
import { problem, type PolicyProblem } from "../../api/problem.js";
import { guessedPlural } from "../../api/guessed-plural.js";
import { resourceLabels, resourceName, resourceNamespace } from "../../api/resource.js";
import { evaluateSelector } from "../../match/index.js";
import { needsLabels } from "../../match/namespace-labels.js";
import type { MatchRequest } from "../../match/index.js";
import { CORE_RESOURCES, resourceOfKind } from "./resource-names.js";

type ConstraintVerdict =
  { readonly kind: "match" } | { readonly kind: "no-match" } | { readonly kind: "error"; readonly message: string };

export interface CompiledConstraints {
  decide(req: MatchRequest): ConstraintVerdict;
  /**
   * The namespaceSelector's field when it, and only it, is left to decide `req` and it reads labels
   * beyond the namespace's name (match/namespace-labels.ts): the request passes resourceRules,
   * excludeResourceRules and objectSelector, and is namespaced. Undefined otherwise. A request whose
   * namespace's labels are unknown cannot be decided then (server/admission/namespace-facts.ts).
   */
  namespaceLabelsFor(req: MatchRequest): string | undefined;
  /** resourceRules and excludeResourceRules as written, for the webhook registration; undefined: every request (JSON mode). */
  readonly resourceRules?: { readonly include: readonly ResourceRule[]; readonly exclude: readonly ResourceRule[] };
}

export interface ResourceRule {
  readonly groups: readonly string[];
  readonly versions: readonly string[];
  readonly resources: readonly string[];
  readonly operations: readonly string[];
  readonly names: readonly string[];
}

const MATCH: ConstraintVerdict = { kind: "match" };
const NO_MATCH: ConstraintVerdict = { kind: "no-match" };

function strings(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function rulesOf(v: JsonValue | undefined): ResourceRule[] {
  return (Array.isArray(v) ? v.filter(isObject) : []).map((r) => ({
    groups: strings(r["apiGroups"]),
    versions: strings(r["apiVersions"]),
    resources: strings(r["resources"]),
    operations: strings(r["operations"]),
    names: strings(r["resourceNames"]),
  }));
}

function listed(values: readonly string[], value: string): boolean {
  return values.includes("*") || values.includes(value);
}

/** `resources` entries: `*`, `pods`, `pods/status`, `pods/*`, `*∕status`. */
function resourceListed(values: readonly string[], resource: string, subresource: string): boolean {
  for (const v of values) {
    if (v === "*" && subresource === "") return true;
    if (v === "*/*") return true;
    const slash = v.indexOf("/");
    const res = slash < 0 ? v : v.slice(0, slash);
    const sub = slash < 0 ? "" : v.slice(slash + 1);
    if ((res === resource || res === "*") && (sub === subresource || (sub === "*" && subresource !== ""))) return true;
  }
  return false;
}

/** Whether a rule's resources can only be decided by the resource's plural (not `*`). */
function needsPlural(rule: ResourceRule, subresource: string): boolean {
  return !rule.resources.includes("*/*") && !(subresource === "" && rule.resources.includes("*"));
}

type RuleVerdict = "match" | "no-match" | "unknown";

/** Whether every resource a rule names (before any `/subresource`) is a core-group resource. */
function namesOnlyCore(rule: ResourceRule): boolean {
  return rule.resources.every((r) => CORE_RESOURCES.has(r.split("/")[0] ?? ""));
}

function ruleVerdict(rule: ResourceRule, req: MatchRequest, resource: string | undefined): RuleVerdict {
  if (!listed(rule.operations, req.operation)) return "no-match";
  if (!listed(rule.groups, req.gvk.group) || !listed(rule.versions, req.gvk.version)) return "no-match";
  if (rule.names.length > 0 && !rule.names.includes(resourceName(req.resource))) return "no-match";
  if (resource === undefined) {
    if (!needsPlural(rule, req.subresource)) return "match";
    // Kyverno's CLI guesses an unknown kind's resource (Kubernetes' UnsafeGuessKindToResource): a rule
    // naming the guess matches, as there. A guess no rule names may be a wrong guess (an irregular
    // plural), so it stays unknown, never a silent no-match.
    if (resourceListed(rule.resources, guessedPlural(req.gvk.kind), req.subresource)) return "match";
    // An unknown kind of the core group is none of its resources: a rule naming only those cannot match it.
    return req.gvk.group === "" && namesOnlyCore(rule) ? "no-match" : "unknown";
  }
  return resourceListed(rule.resources, resource, req.subresource) ? "match" : "no-match";
}

function anyRule(rules: readonly ResourceRule[], req: MatchRequest, resource: string | undefined): RuleVerdict {
  let unknown = false;
  for (const r of rules) {
    const v = ruleVerdict(r, req, resource);
    if (v === "match") return "match";
    if (v === "unknown") unknown = true;
  }
  return unknown ? "unknown" : "no-match";
}

function selector(v: JsonValue | undefined): LabelSelector | undefined {
  return isObject(v) ? v : undefined;
}

/**
 * Where the MatchResources are and whether they must name resourceRules: a policy's
 * `spec.matchConstraints` must; a ValidatingAdmissionPolicyBinding's `spec.matchResources` may
 * leave them out (then every resource the policy matches is in, as Kubernetes matches a binding).
 */
interface ConstraintsAt {
  readonly field: string;
  readonly rulesRequired: boolean;
}

const POLICY_CONSTRAINTS: ConstraintsAt = { field: "spec.matchConstraints", rulesRequired: true };

export function compileConstraints(
  spec: JsonObject,
  what: string,
  at: ConstraintsAt = POLICY_CONSTRAINTS,
): { ok: true; value: CompiledConstraints } | { ok: false; problems: PolicyProblem[] } {
  const field = at.field;
  const mc = spec[field.slice(field.lastIndexOf(".") + 1)];
  if (!isObject(mc)) return { ok: false, problems: [problem(field, `${what}: ${field} is required`)] };
  const rules = rulesOf(mc["resourceRules"]);
  const everyResource = rules.length === 0 && !at.rulesRequired;
  if (rules.length === 0 && at.rulesRequired)
    return {
      ok: false,
      problems: [problem(`${field}.resourceRules`, `${what}: ${field}.resourceRules must name at least one rule`)],
    };
  const excluded = rulesOf(mc["excludeResourceRules"]);
  const namespaceSelector = selector(mc["namespaceSelector"]);
  const objectSelector = selector(mc["objectSelector"]);
  /** The verdict before the namespaceSelector: MATCH when only the selector is left to decide. */
  const upToSelector = (req: MatchRequest): ConstraintVerdict => {
    // A NamespacedValidatingPolicy sees only the resources of its own namespace.
    if (req.policyNamespace !== "" && req.policyNamespace !== resourceNamespace(req.resource)) return NO_MATCH;
    const resource = req.gvk.resource ?? resourceOfKind(req.gvk.kind);
    const matched = everyResource ? "match" : anyRule(rules, req, resource);
    if (matched === "no-match") return NO_MATCH;
    if (matched === "unknown") return unknownKind(req, field);
    const out = anyRule(excluded, req, resource);
    if (out === "match") return NO_MATCH;
    if (out === "unknown") return unknownKind(req, field);
    // (The labels are read only for a selector: most policies have none, and reading them builds a map.)
    return objectSelector === undefined
      ? MATCH
      : selected(objectSelector, resourceLabels(req.resource), `${field}.objectSelector`);
  };
  /** Whether the namespaceSelector reads the labels of the request's namespace (not of a Namespace itself, nor for a cluster-scoped resource). */
  const readsNamespace = (req: MatchRequest): boolean =>
    !isNamespaceKind(req) && resourceNamespace(req.resource) !== "";
  const decide = (req: MatchRequest): ConstraintVerdict => {
    const before = upToSelector(req);
    if (before !== MATCH || namespaceSelector === undefined) return before;
    if (!isNamespaceKind(req) && resourceNamespace(req.resource) === "") return MATCH;
    return selected(
      namespaceSelector,
      isNamespaceKind(req) ? resourceLabels(req.resource) : req.namespaceLabels,
      `${field}.namespaceSelector`,
    );
  };
  const labelsField = needsLabels(mc["namespaceSelector"]) ? `${field}.namespaceSelector` : undefined;
  const namespaceLabelsFor = (req: MatchRequest): string | undefined =>
    labelsField !== undefined && readsNamespace(req) && upToSelector(req) === MATCH ? labelsField : undefined;
  return { ok: true, value: { decide, namespaceLabelsFor, resourceRules: { include: rules, exclude: excluded } } };
}

/** The verdict for a kind whose resource name Bylaw does not know (built only when it is the answer). */
function unknownKind(req: MatchRequest, field: string): ConstraintVerdict {
  const kind = req.gvk.kind;
  const gv = req.gvk.group === "" ? req.gvk.version : `${req.gvk.group}/${req.gvk.version}`;
  return {
    kind: "error",
    message: `kind ${kind} (${gv}) is not a built-in kind Bylaw knows the resource name of, so ${field} cannot be decided for it; it was not evaluated (offline, give its CustomResourceDefinition: bylaw apply --crd-paths, or in a test a clusterResources file's spec.crds)`,
  };
}

function isNamespaceKind(req: MatchRequest): boolean {
  return req.gvk.kind === "Namespace" && req.gvk.group === "" && req.gvk.version === "v1";
}

function selected(
  sel: LabelSelector | undefined,
  labels: Readonly<Record<string, string>>,
  field: string,
): ConstraintVerdict {
  if (sel === undefined) return MATCH;
  const r = evaluateSelector(sel, labels);
  if (!r.ok) return { kind: "error", message: `${field}: ${r.error}` };
  return r.matched ? MATCH : NO_MATCH;
}
