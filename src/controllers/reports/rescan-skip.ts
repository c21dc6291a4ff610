/**
 * When a rescan may skip a resource (issue 35): its report was built from the same inputs it would
 * be built from now. The inputs of a background scan are the resource (its resourceVersion), its
 * Namespace (labels and resourceVersion: CEL's `namespaceObject` reads the whole object), the policy set (its generation, exceptions included) and the report as it
 * stands (its resourceVersion: a report someone else changed or deleted is scanned again); plus,
 * for a policy that reads live state (context entries other than variables, the CEL resource, http,
 * globalContext and image libraries, image verification, the clock or randomness: the compiled
 * policy's `readsLiveState`, engine/kinds/reads-live-state.ts), the world, which Bylaw cannot
 * version. A resource one of those policies matched is never skipped.
 *
 * Kyverno's background scan does the same kind of skip (its reports carry the resource's hash and
 * the policies' versions, and a report is rebuilt when they differ).
 */
import { type CompiledPolicy, isObject, type PolicyResponse } from "../../engine/index.js";
import type { NamespaceFacts } from "../namespace-facts.js";

/** What a resource's report was built from (or what it would be built from now). */
export interface ScanBasis {
  readonly resourceVersion: string;
  /** The resource's Namespace as {@link namespaceKey} gives it. */
  readonly namespace: string;
  readonly generation: number;
  /** The resourceVersion of the resource's report; undefined when it has none. */
  readonly reportVersion: string | undefined;
}

/** Whether the basis of the last scan is the basis now: the scan would build the same report. */
export function unchangedSince(last: ScanBasis | undefined, now: ScanBasis): boolean {
  return (
    last !== undefined &&
    last.resourceVersion !== "" &&
    last.resourceVersion === now.resourceVersion &&
    last.namespace === now.namespace &&
    last.generation === now.generation &&
    last.reportVersion === now.reportVersion
  );
}

/**
 * A Namespace as one comparable string: its labels whatever order their keys came in, and the
 * object's resourceVersion (an annotation's change is a change); `[]` for a cluster-scoped resource.
 */
export function namespaceKey(facts: NamespaceFacts): string {
  const labels = facts.namespaceLabels;
  const keys = Object.keys(labels).sort();
  const meta = facts.namespaceObject?.["metadata"];
  const version = isObject(meta) && typeof meta["resourceVersion"] === "string" ? meta["resourceVersion"] : "";
  return JSON.stringify([version, ...keys.map((k) => [k, labels[k]])]);
}

/**
 * Whether a scan's result may be recorded for a later skip: no policy that reads live state
 * answered for the resource, and none of the CEL ones that could apply to it reads live state
 * (their match conditions are expressions; a kyverno.io rule's match reads only the resource and
 * its namespace, and a matched rule always answers, skip included).
 */
export function recordable(input: {
  readonly policies: readonly CompiledPolicy[];
  readonly responses: readonly PolicyResponse[];
  readonly namespace: string;
}): boolean {
  for (const r of input.responses) if (r.policy.readsLiveState) return false;
  return !input.policies.some(
    (p) => p.language !== "kyverno" && (p.namespace === "" || p.namespace === input.namespace) && p.readsLiveState,
  );
}
