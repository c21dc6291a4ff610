/**
 * A MutatingPolicy in a background scan, as Kyverno's reports controller scans it: the policy is
 * applied to the stored object, and a pass whose patch would change it (the mutation is not in the
 * stored object) is a fail, "mutation is not applied"; errors, skips and results an exception
 * decided stay as they are. The scan's PolicyReports carry these rows like any other policy's.
 */
import { jsonEqual } from "../../api/json-equal.js";
import { ruleResult } from "../../api/rule-result.js";
import type { PolicyResponse } from "../../pipeline/types.js";
import type { CompiledPolicy } from "../../policy/compiled-policy.js";
import { readsTypedKinds } from "./reads-typed-kinds.js";

/** Whether a background scan runs the policy's mutations (Kyverno's scanner: MutatingPolicy and its namespaced kind). */
export function scansMutation(policy: Pick<CompiledPolicy, "origin">): boolean {
  return readsTypedKinds(policy);
}

/** The scan's view of a mutate response on the stored object. */
export function mutationScanResponse(response: PolicyResponse): PolicyResponse {
  const patched = response.patchedResource;
  if (patched === undefined || jsonEqual(patched, response.resource)) return response;
  return {
    ...response,
    rules: response.rules.map((r) =>
      r.status === "pass" && (r.exceptions?.length ?? 0) === 0
        ? ruleResult(r.rule, "Mutation", "fail", "mutation is not applied")
        : r,
    ),
  };
}
