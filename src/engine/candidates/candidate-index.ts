/**
 * An index from a request to the policies that may have a rule matching it, built once per policy
 * list (a webhook plan of one snapshot) and asked once per review, so a review reaches only those
 * policies and a review no rule can match is answered without evaluating any policy.
 *
 * It is conservative: a policy is left out only when none of its rules can match, by facts the
 * rule's own matcher checks first and rejects on (match/match-rule.ts): the literal kinds its match
 * names, the operations it names, and a namespaced Policy's own namespace. Everything else a match
 * decides (names, namespaces, selectors, user info, exclude) and every precondition stays evaluated
 * by the policy itself. Policies other than kyverno.io ones (their matching is their kind's own) are
 * always candidates. A policy left out would have given a response with no rule results.
 *
 * Autogen copies are rules of their policy with their controllers' kinds, so a Deployment reaches
 * the policies whose Pod rules were copied to it.
 */
import { resourceKind, resourceNamespace } from "../api/resource.js";
import type { PreparedRequest } from "../pipeline/prepared-request.js";
import type { CompiledPolicy, CompiledRule } from "../policy/compiled-policy.js";

/** Distinct (kind, operation, namespace) keys remembered per index; past this, masks are worked out per review. */
const MAX_REMEMBERED = 4096;

/** For each policy of the indexed list, in its order: 1 when it may have a rule matching the request, else 0. */
type CandidateMask = Uint8Array;

export interface CandidateIndex {
  /** The indexed policies, in the order the masks follow. */
  readonly policies: readonly CompiledPolicy[];
  /** The policies that may match the request (a mask over `policies`); the same array for the same facts. */
  candidates(prepared: PreparedRequest): CandidateMask;
}

/** What a rule's matcher rejects on before anything else; undefined lists: any. */
interface RuleGate {
  readonly kinds: readonly string[] | undefined;
  readonly operations: readonly string[] | undefined;
}

/** A policy's gates: `always` for a policy the index cannot narrow. */
type PolicyGate =
  | { readonly always: true }
  | { readonly always: false; readonly namespace: string; readonly rules: readonly RuleGate[] };

function gateOf(policy: CompiledPolicy): PolicyGate {
  if (policy.language !== "kyverno") return { always: true };
  return { always: false, namespace: policy.namespace, rules: policy.rules.map(ruleGate) };
}

function ruleGate(rule: CompiledRule): RuleGate {
  return { kinds: rule.matcher.kinds, operations: rule.matcher.operations };
}

/** Whether a rule's match can select the kind and operation (its literal kinds and operations, when it names them). */
export function ruleAdmits(
  rule: { readonly kinds?: readonly string[] | undefined; readonly operations?: readonly string[] | undefined },
  kind: string,
  operation: string,
): boolean {
  return (
    (rule.kinds === undefined || rule.kinds.includes(kind)) &&
    (rule.operations === undefined || rule.operations.includes(operation))
  );
}

/** The kind and operation the rules' matchers see for a request (pipeline/match-rule.ts matchRequestFor). */
export function matchedAs(prepared: PreparedRequest): { readonly kind: string; readonly operation: string } {
  return { kind: prepared.request.matchKind?.kind ?? resourceKind(prepared.subject), operation: prepared.operation };
}

function admits(gate: PolicyGate, kind: string, operation: string, namespace: string): boolean {
  if (gate.always) return true;
  // A namespaced Policy only matches resources of its own namespace (match-rule.ts).
  if (gate.namespace !== "" && gate.namespace !== namespace) return false;
  for (const r of gate.rules) if (ruleAdmits(r, kind, operation)) return true;
  return false;
}

/** Builds the index of a policy list (at policy load: once per snapshot and webhook plan). */
export function indexPolicies(policies: readonly CompiledPolicy[]): CandidateIndex {
  const gates = policies.map(gateOf);
  // Only namespaced Policies make the namespace part of the key.
  const byNamespace = gates.some((g) => !g.always && g.namespace !== "");
  const remembered = new Map<string, CandidateMask>();
  const maskOf = (kind: string, operation: string, namespace: string): CandidateMask => {
    const mask = new Uint8Array(gates.length);
    for (let i = 0; i < gates.length; i++) if (admits(gates[i] as PolicyGate, kind, operation, namespace)) mask[i] = 1;
    return mask;
  };
  return {
    policies,
    candidates(prepared: PreparedRequest): CandidateMask {
      const { kind, operation } = matchedAs(prepared);
      const namespace = byNamespace ? resourceNamespace(prepared.subject) : "";
      const key = `${kind}\u0000${operation}\u0000${namespace}`;
      let mask = remembered.get(key);
      if (mask === undefined) {
        mask = maskOf(kind, operation, namespace);
        if (remembered.size < MAX_REMEMBERED) remembered.set(key, mask);
      }
      return mask;
    },
  };
}
