/**
 * An index from a request to the policies that may have a rule matching it, built once per policy
 * list (a webhook plan of one snapshot) and asked once per review, so a review reaches only those
 * policies and a review no rule can match is answered without evaluating any policy.
 *
 * It is conservative: a policy is left out only when none of its rules can match, by facts of the
 * request alone that the rule's own matcher requires (match/match-rule.ts, `CompiledMatch.gate`): the
 * kinds its match names (group, version and subresource included), the operations it names, the
 * `namespaces` and `names` patterns and the label keys of the `selector` it writes in every filter
 * that decides it, and a namespaced Policy's own namespace. Selectors' values, namespace selectors,
 * user info, exclude and every precondition stay evaluated by the policy itself. Policies other than kyverno.io ones (their matching is their kind's own) are
 * always candidates. A policy left out would have given a response with no rule results.
 *
 * Autogen copies are rules of their policy with their controllers' kinds, so a Deployment reaches
 * the policies whose Pod rules were copied to it.
 */
import type { GroupVersionKind } from "../api/resource.js";
import { resourceLabels, resourceNamespace } from "../api/resource.js";
import { anyPatternMatches, matchedName, matchedNamespace } from "../match/resource-description.js";
import type { CompiledMatch } from "../match/types.js";
import { matchedKind } from "../pipeline/match-rule.js";
import type { PreparedRequest } from "../pipeline/prepared-request.js";
import type { CompiledPolicy } from "../policy/compiled-policy.js";

/** Distinct request keys remembered per index; past this, masks are worked out per review. */
const MAX_REMEMBERED = 4096;

/** For each policy of the indexed list, in its order: 1 when it may have a rule matching the request, else 0. */
type CandidateMask = Uint8Array;

export interface CandidateIndex {
  /** The indexed policies, in the order the masks follow. */
  readonly policies: readonly CompiledPolicy[];
  /** The policies that may match the request (a mask over `policies`); the same array for the same facts. */
  candidates(prepared: PreparedRequest): CandidateMask;
}

interface IndexOptions {
  /**
   * Whether the policies match a subject the ones before them may have patched (the mutating
   * webhook's list): a mutation could name an object that had only a generateName, or label it, so
   * the index then rules on neither `names` and `namespaces` patterns nor selector keys.
   */
  readonly patched: boolean;
}

/** What a rule's matcher requires of a request before anything else (its literal kinds and operations, its gate); absent: anything. */
type RuleGate = Pick<CompiledMatch, "kinds" | "operations" | "gate">;

/** A policy's gates: `always` for a policy the index cannot narrow. */
type PolicyGate =
  | { readonly always: true }
  | { readonly always: false; readonly namespace: string; readonly rules: readonly RuleGate[] };

function gateOf(policy: CompiledPolicy): PolicyGate {
  if (policy.language !== "kyverno") return { always: true };
  return { always: false, namespace: policy.namespace, rules: policy.rules.map((r) => r.matcher) };
}

/** The facts of a request the index decides on: what the rules' matchers see (pipeline/match-rule.ts matchRequestFor). */
export interface RequestFacts {
  readonly gvk: GroupVersionKind;
  readonly subresource: string;
  readonly operation: string;
  /** The subject's namespace ("" when cluster-scoped): a namespaced Policy's. */
  readonly namespace: string;
  /** The namespace `namespaces` patterns match (a Namespace's own name); undefined: not ruled on. */
  readonly matchNamespace: string | undefined;
}

/** `patched`: the subject is patched on the way (IndexOptions), so its namespace patterns are not ruled on. */
export function requestFacts(prepared: PreparedRequest, patched = false): RequestFacts {
  const subject = prepared.subject;
  return {
    gvk: matchedKind(prepared),
    subresource: prepared.request.subresource ?? "",
    operation: prepared.operation,
    namespace: resourceNamespace(subject),
    matchNamespace: patched ? undefined : matchedNamespace(subject),
  };
}

/**
 * Whether a rule's match can select a request with these facts (its kinds, operations and
 * namespaces); its names are asked apart (`nameAdmits`), since a name is no part of a remembered key.
 */
export function ruleAdmits(rule: RuleGate, facts: RequestFacts): boolean {
  const gate = rule.gate;
  return (
    (rule.kinds === undefined || rule.kinds.includes(facts.gvk.kind)) &&
    (rule.operations === undefined || rule.operations.includes(facts.operation)) &&
    (gate?.kinds === undefined || gate.kinds(facts.gvk, facts.subresource)) &&
    (gate?.namespaces === undefined ||
      facts.matchNamespace === undefined ||
      anyPatternMatches(gate.namespaces, facts.matchNamespace))
  );
}

/** Whether a rule's match can select a subject of this name (`names`/`name` patterns). */
export function nameAdmits(rule: RuleGate, name: string): boolean {
  const names = rule.gate?.names;
  return names === undefined || anyPatternMatches(names, name);
}

/** Whether a rule's match can select a subject with these labels (the keys its selectors require). */
export function labelsAdmit(rule: RuleGate, labels: Readonly<Record<string, string>>): boolean {
  const alternatives = rule.gate?.labelKeys;
  return alternatives === undefined || alternatives.some((keys) => keys.every((k) => Object.hasOwn(labels, k)));
}

/** Whether a rule's gate asks about the subject itself (its name or its labels), which no remembered key holds. */
function asksSubject(rule: RuleGate): boolean {
  return rule.gate?.names !== undefined || rule.gate?.labelKeys !== undefined;
}

/** A request key's mask, and the policies in it that also depend on the subject's name or labels. */
interface Remembered {
  readonly mask: CandidateMask;
  /** Indexes of policies each of whose admitted rules writes name patterns or selector keys. */
  readonly bySubject: readonly number[];
}

/** Builds the index of a policy list (at policy load: once per snapshot and webhook plan). */
export function indexPolicies(
  policies: readonly CompiledPolicy[],
  o: IndexOptions = { patched: false },
): CandidateIndex {
  const gates = policies.map(gateOf);
  // The namespace is part of the key only where a namespaced Policy or a `namespaces` pattern reads it.
  const byNamespace = gates.some(
    (g) => !g.always && (g.namespace !== "" || (!o.patched && g.rules.some((r) => r.gate?.namespaces !== undefined))),
  );
  const remembered = new Map<string, Remembered>();
  const work = (facts: RequestFacts): Remembered => {
    const mask = new Uint8Array(gates.length);
    const bySubject: number[] = [];
    for (let i = 0; i < gates.length; i++) {
      const gate = gates[i] as PolicyGate;
      if (gate.always) {
        mask[i] = 1;
        continue;
      }
      // A namespaced Policy only matches resources of its own namespace (match-rule.ts).
      if (gate.namespace !== "" && gate.namespace !== facts.namespace) continue;
      const admitted = gate.rules.filter((r) => ruleAdmits(r, facts));
      if (admitted.length === 0) continue;
      mask[i] = 1;
      if (!o.patched && admitted.every(asksSubject)) bySubject.push(i);
    }
    return { mask, bySubject };
  };
  return {
    policies,
    candidates(prepared: PreparedRequest): CandidateMask {
      const facts = requestFacts(prepared, o.patched);
      const gvk = facts.gvk;
      const namespaces = byNamespace ? `${facts.namespace}\u0000${facts.matchNamespace ?? ""}` : "";
      const key = `${gvk.group}\u0000${gvk.version}\u0000${gvk.kind}\u0000${facts.subresource}\u0000${facts.operation}\u0000${namespaces}`;
      let found = remembered.get(key);
      if (found === undefined) {
        found = work(facts);
        if (remembered.size < MAX_REMEMBERED) remembered.set(key, found);
      }
      if (found.bySubject.length === 0) return found.mask;
      const subject = prepared.subject;
      return withoutUnselected(found, gates, {
        facts,
        name: matchedName(subject),
        labels: resourceLabels(subject),
      });
    },
  };
}

/**
 * The key's mask less the policies none of whose admitted rules can select the subject by its name
 * and labels (a copy, when any is left out).
 */
function withoutUnselected(
  found: Remembered,
  gates: readonly PolicyGate[],
  o: { readonly facts: RequestFacts; readonly name: string; readonly labels: Readonly<Record<string, string>> },
): CandidateMask {
  let mask = found.mask;
  for (const i of found.bySubject) {
    const gate = gates[i] as PolicyGate;
    if (gate.always) continue;
    if (gate.rules.some((r) => ruleAdmits(r, o.facts) && nameAdmits(r, o.name) && labelsAdmit(r, o.labels))) continue;
    if (mask === found.mask) mask = Uint8Array.from(found.mask);
    mask[i] = 0;
  }
  return mask;
}
