/**
 * A CompiledMatch over a CEL kind's match constraints (matchConstraints, a binding's
 * matchResources): it matches unless the constraints say no-match (an error is evaluated, to be
 * answered as one).
 */
import type { CompiledMatch, MatchDecision, MatchRequest } from "./types.js";

type Verdict =
  { readonly kind: "match" } | { readonly kind: "no-match" } | { readonly kind: "error"; readonly message: string };

/** `clause` names what decides in explanations, e.g. `spec.matchConstraints`. */
export function verdictMatcher(decide: (req: MatchRequest) => Verdict, clause: string): CompiledMatch {
  return {
    kinds: undefined,
    matches: (req) => decide(req).kind !== "no-match",
    explain: (req) => verdictDecision(decide(req), clause),
  };
}

/** A constraints verdict as an explanation says it (an error is evaluated, to be answered as one). */
export function verdictDecision(verdict: Verdict, clause: string): MatchDecision {
  if (verdict.kind === "no-match") return { matched: false, reason: `${clause} did not select it`, elsewhere: true };
  if (verdict.kind === "error") return { matched: true, reason: `${clause} could not decide: ${verdict.message}` };
  return { matched: true, reason: `${clause} selected it` };
}
