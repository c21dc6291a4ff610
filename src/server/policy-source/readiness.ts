/**
 * Whether `bylaw serve` may take reviews. Not ready until a policy set has loaded, nor (with a
 * cluster facts file) until the facts have: without them no review can be evaluated, and saying
 * ready would let the API server send reviews that can only fail. Once both have loaded, a later
 * rejected reload keeps the last good ones in use: still ready, with the reason as detail.
 */
import type { PolicyLoadError, PolicySnapshot } from "../types.js";
import type { Readiness } from "./types.js";

interface SourceState {
  readonly snapshot: PolicySnapshot;
  readonly policyError: PolicyLoadError | undefined;
  readonly factsFile: string | undefined;
  readonly factsLoaded: boolean;
  readonly factsError: PolicyLoadError | undefined;
}

export function sourceReadiness(state: SourceState): Readiness {
  const { snapshot, policyError, factsError } = state;
  const missing: string[] = [];
  if (snapshot.generation === 0)
    missing.push(`no policy set loaded yet${policyError ? `: ${policyError.message}` : ""}`);
  if (!state.factsLoaded)
    missing.push(
      `no cluster facts loaded yet from ${state.factsFile ?? "?"}${factsError ? `: ${factsError.message}` : ""}`,
    );
  if (missing.length > 0) return { ok: false, reason: missing.join("; ") };
  const stale: string[] = [];
  if (policyError !== undefined)
    stale.push(
      `serving the last good policy set (generation ${snapshot.generation}); the last reload was rejected: ${policyError.message}`,
    );
  if (factsError !== undefined)
    stale.push(`serving the last good cluster facts; the last reload was rejected: ${factsError.message}`);
  return stale.length > 0 ? { ok: true, reason: stale.join("; ") } : { ok: true };
}
