/**
 * The cleanup controller's decisions for one kyverno.io cleanup policy, pure (inputs in, actions
 * out), as Kyverno's cleanup controller makes them:
 * - `cleanupTiming`: the policy is due when now is past the schedule's first run after its last
 *   execution (`status.lastExecutionTime`, or its creation when it never ran); the run is recorded
 *   as that scheduled time, and the next one is the schedule's first run after it;
 * - `cleanupDeletions`: of the candidate objects (listed for each kind its match names; a
 *   namespaced CleanupPolicy's only in its namespace), those the engine decides to delete. Objects
 *   managed by Kyverno are left alone; a candidate whose conditions cannot be evaluated is an error,
 *   never deleted;
 * - `cleanupStatus`: the status to write: `lastExecutionTime` and a Ready condition.
 */
import {
  cleanupDecision,
  type CleanupCandidate,
  type CompiledCleanupPolicy,
  type EngineEnv,
  isObject,
  type JsonObject,
  type Resource,
} from "../../engine/index.js";
import { nextRun } from "./schedule.js";

type CleanupTiming =
  | { readonly ok: true; readonly due: boolean; readonly executionTime: number; readonly nextRun: number }
  | { readonly ok: false; readonly error: string };

interface TimingInput {
  readonly schedule: string;
  readonly creationTimestamp: string | undefined;
  readonly lastExecutionTime: string | undefined;
  readonly now: number;
}

export function cleanupTiming(input: TimingInput): CleanupTiming {
  const last = Date.parse(input.lastExecutionTime ?? input.creationTimestamp ?? "");
  const from = Number.isNaN(last) ? input.now : last;
  const execution = nextRun(input.schedule, from);
  if (!execution.ok) return execution;
  if (input.now <= execution.at) return { ok: true, due: false, executionTime: execution.at, nextRun: execution.at };
  const next = nextRun(input.schedule, execution.at);
  if (!next.ok) return next;
  return { ok: true, due: true, executionTime: execution.at, nextRun: next.at };
}

export interface CleanupDeletions {
  readonly deletions: readonly Resource[];
  readonly errors: readonly { readonly resource: Resource; readonly message: string }[];
}

const MANAGED_BY = "app.kubernetes.io/managed-by";

export function cleanupDeletions(
  policy: CompiledCleanupPolicy,
  candidates: readonly CleanupCandidate[],
  env: EngineEnv,
): CleanupDeletions {
  const deletions: Resource[] = [];
  const errors: { resource: Resource; message: string }[] = [];
  for (const c of candidates) {
    if (labelsOf(c.resource)[MANAGED_BY] === "kyverno") continue;
    const d = cleanupDecision(policy, c, env);
    if (!d.ok) errors.push({ resource: c.resource, message: d.error.message });
    else if (d.value) deletions.push(c.resource);
  }
  return { deletions, errors };
}

function labelsOf(resource: Resource): Record<string, unknown> {
  const meta = resource["metadata"];
  return isObject(meta) && isObject(meta["labels"]) ? meta["labels"] : {};
}

/** Why the policy is not Ready (undefined: it is). */
export interface NotReady {
  readonly reason: string;
  readonly message: string;
}

/**
 * The status to write: `lastExecutionTime` (when it ran) and one Ready condition; the condition's
 * `lastTransitionTime` stays as it was while its status does not change.
 */
export function cleanupStatus(input: {
  readonly current: JsonObject | undefined;
  readonly lastExecutionTime: number | undefined;
  readonly notReady: NotReady | undefined;
  readonly now: number;
}): JsonObject {
  const { current, notReady } = input;
  const status = notReady === undefined ? "True" : "False";
  const previous = Array.isArray(current?.["conditions"])
    ? current["conditions"].find((c) => isObject(c) && c["type"] === "Ready")
    : undefined;
  const since =
    isObject(previous) && previous["status"] === status && typeof previous["lastTransitionTime"] === "string"
      ? previous["lastTransitionTime"]
      : seconds(input.now);
  const ready = {
    type: "Ready",
    status,
    reason: notReady?.reason ?? "Succeeded",
    message: notReady?.message ?? "Ready",
    lastTransitionTime: since,
  };
  return {
    ...(input.lastExecutionTime !== undefined
      ? { lastExecutionTime: seconds(input.lastExecutionTime) }
      : typeof current?.["lastExecutionTime"] === "string"
        ? { lastExecutionTime: current["lastExecutionTime"] }
        : {}),
    conditions: [ready],
  };
}

/** A metav1.Time: RFC 3339 to the second. */
function seconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}
