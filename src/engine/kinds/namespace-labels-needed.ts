/**
 * Which of a policy's matchers cannot decide a request without the labels of its namespace, asked of
 * the policy's head (ADR 0005 step 1) for every kind alike. The webhook asks it when the cluster facts
 * do not know the request's namespace (server/admission/namespace-facts.ts): evaluating such a
 * matcher with no labels could quietly skip a policy meant to apply (a silent pass).
 * - `rules` (kyverno.io): the rules of the phase that select by namespace labels (match, exclude or a
 *   failure-action override: match/namespace-labels.ts) and that the request's kind, operation and
 *   namespace leave undecided: a rule whose match cannot select the kind, subresource, operation,
 *   namespace, name or labels (its selector's keys) the matcher sees, or of a namespaced Policy of another namespace, matches
 *   whatever the labels are not, and
 *   runs as usual. These are the candidate index's gates (candidates/candidate-index.ts), so a
 *   policy the index rules out needs no labels either, in any namespace.
 * - `policy` (every CEL kind): the one matchConstraints (or, for a Kubernetes admission policy with
 *   bindings, the binding's matchResources) whose namespaceSelector is all that is left to decide the
 *   request; the policy does not run and answers one error under the name its results carry.
 * - `none`: the request is decided without them.
 */
import type { MatchRequest } from "../match/index.js";
import { resourceLabels, resourceNamespace } from "../api/resource.js";
import { matchedName } from "../match/resource-description.js";
import { labelsAdmit, nameAdmits, requestFacts, ruleAdmits, type RequestFacts } from "../candidates/candidate-index.js";
import type { RuleType } from "../api/rule-result.js";
import type { CompiledConstraints } from "../cel/validating-policy/match-constraints.js";
import type { CompiledBinding } from "../cel/admission-policy/index.js";
import { type PreparedRequest, prepareRequest } from "../pipeline/prepared-request.js";
import type { EngineRequest } from "../pipeline/types.js";
import type { CompiledPolicy, CompiledRule } from "../policy/compiled-policy.js";
import { policyMatchOf } from "./policy-match.js";

/** A matcher that needs the namespace's labels: the name its result carries and the selector's field. */
interface LabelsNeed {
  readonly name: string;
  readonly field: string;
}

type NamespaceLabelsNeed =
  | { readonly scope: "none" }
  | {
      readonly scope: "rules";
      /** The policy's other rules, which run as usual, and whether any of them is of the phase. */
      readonly rest: readonly CompiledRule[];
      readonly restRuns: boolean;
      readonly needs: readonly LabelsNeed[];
    }
  | { readonly scope: "policy"; readonly need: LabelsNeed };

const NONE: NamespaceLabelsNeed = { scope: "none" };

export function namespaceLabelsNeeded(
  policy: CompiledPolicy,
  given: EngineRequest | PreparedRequest,
  type: RuleType,
): NamespaceLabelsNeed {
  const request = prepareRequest(given);
  const match = policyMatchOf(policy);
  if (match.language === "none") return NONE;
  if (match.language === "kyverno") return kyvernoNeeds(policy, match.rules, request, type);
  const req = request.matchContext(policy).req;
  const bound = bindingsOf(policy);
  if (bound.length > 0) {
    for (const b of bound) {
      const field = b.constraints?.namespaceLabelsFor(req);
      if (field !== undefined)
        return { scope: "policy", need: { name: resultName(policy), field: `(binding ${b.name}) ${field}` } };
    }
    return NONE;
  }
  const field = firstField(ownConstraints(policy, match.constraints), req);
  return field === undefined ? NONE : { scope: "policy", need: { name: resultName(policy), field } };
}

/**
 * What a rule's matcher rejects a request on before its selectors (the candidate index's facts), and
 * a namespaced Policy's namespace. The subject's name and namespace patterns too, except for
 * mutation: there a rule matches the object the policies before it patched, on which the index does
 * not rule by them either (IndexOptions `patched`).
 */
interface Gate {
  readonly facts: RequestFacts;
  readonly name: string | undefined;
  /** The subject's labels, asked of rules' selector keys; undefined for mutation. */
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** Whether the request is in the policy's namespace (always, for a cluster-wide policy). */
  readonly inPolicyNamespace: boolean;
}

function gateOf(policy: CompiledPolicy, request: PreparedRequest, type: RuleType): Gate {
  const ns = policy.namespace;
  return {
    facts: requestFacts(request, type === "Mutation"),
    name: type === "Mutation" ? undefined : matchedName(request.subject),
    labels: type === "Mutation" ? undefined : resourceLabels(request.subject),
    inPolicyNamespace: ns === "" || ns === resourceNamespace(request.subject),
  };
}

function kyvernoNeeds(
  policy: CompiledPolicy,
  rules: readonly CompiledRule[],
  request: PreparedRequest,
  type: RuleType,
): NamespaceLabelsNeed {
  // Asked per policy and review when the namespace is unknown: most policies have no rule of the
  // phase that selects by namespace labels, and are answered by this loop alone, building nothing.
  if (!anySelecting(rules, type)) return NONE;
  const gate = gateOf(policy, request, type);
  if (!gate.inPolicyNamespace || !anyBlind(rules, gate, type)) return NONE;
  const blind = rules.filter((r) => isBlind(r, gate, type));
  const rest = rules.filter((r) => !blind.includes(r));
  return {
    scope: "rules",
    rest,
    restRuns: rest.some((r) => isOfPhase(r, type)),
    needs: blind.map((r) => ({ name: r.name, field: r.namespaceLabels ?? "namespaceSelector" })),
  };
}

function isOfPhase(r: CompiledRule, type: RuleType): boolean {
  return type === "Mutation" ? r.rule.mutate !== undefined : r.rule.validate !== undefined;
}

function anySelecting(rules: readonly CompiledRule[], type: RuleType): boolean {
  for (const r of rules) if (r.namespaceLabels !== undefined && isOfPhase(r, type)) return true;
  return false;
}

function anyBlind(rules: readonly CompiledRule[], gate: Gate, type: RuleType): boolean {
  for (const r of rules) if (isBlind(r, gate, type)) return true;
  return false;
}

/** A rule of the phase that selects by namespace labels and whose match the gate's facts leave undecided. */
function isBlind(r: CompiledRule, gate: Gate, type: RuleType): boolean {
  return (
    r.namespaceLabels !== undefined &&
    isOfPhase(r, type) &&
    ruleAdmits(r.matcher, gate.facts) &&
    (gate.name === undefined || nameAdmits(r.matcher, gate.name)) &&
    (gate.labels === undefined || labelsAdmit(r.matcher, gate.labels))
  );
}

function firstField(constraints: readonly CompiledConstraints[], req: MatchRequest): string | undefined {
  for (const c of constraints) {
    const field = c.namespaceLabelsFor(req);
    if (field !== undefined) return field;
  }
  return undefined;
}

/** A MutatingAdmissionPolicy's own matchConstraints (its `mutating` list is empty); any other kind's head. */
function ownConstraints(policy: CompiledPolicy, head: readonly CompiledConstraints[]): readonly CompiledConstraints[] {
  if (policy.language === "mutating" && policy.mutatingAdmission !== undefined)
    return [policy.mutatingAdmission.body.constraints];
  return head;
}

/** A Kubernetes admission policy's bindings: once any names it, their matchResources decide instead of its own. */
function bindingsOf(policy: CompiledPolicy): readonly CompiledBinding[] {
  if (policy.language === "mutating") return policy.mutatingAdmission?.bindings ?? [];
  if (policy.language !== "cel") return [];
  const program = policy.validating.programs[0]?.program;
  return program?.kind === "admission-policy" ? program.bindings : [];
}

/** The rule name a kind's results carry: a Kubernetes admission policy's name, `""` for Kyverno's CEL kinds. */
function resultName(policy: CompiledPolicy): string {
  if (policy.language === "cel") return policy.validating.programs[0]?.resultName ?? "";
  if (policy.language === "mutating") return policy.mutatingAdmission?.policyName ?? "";
  return "";
}
