/**
 * A policy's existing triggers could not be listed (generateExisting, mutateExistingOnPolicyUpdate,
 * a GeneratingPolicy's generateExisting), typically because a grant was removed after the policy
 * was admitted. Decided without I/O: the message naming the verb, the kind, where, and the API
 * server's answer (which names the ServiceAccount refused); a PolicyError Event on the policy
 * (Kyverno's reason for a policy the background controller cannot run) the first time a policy
 * generation fails so, and again only when the failure changes; and when to try again (30 s
 * doubling to 10 min), so a lasting refusal neither floods Events nor hammers the API server.
 * The policy's Ready condition says the same through the status writer's background check
 * (server/app/background-readiness.ts).
 */
import type { JsonObject } from "../../engine/index.js";
import { policyErrorEvent, type FailedPolicy } from "./failure-event.js";

const FIRST_RETRY_MS = 30_000;
const MAX_RETRY_MS = 10 * 60_000;

/** What was last decided for one policy generation whose listing failed. */
export interface ListFailureState {
  readonly message: string;
  readonly attempts: number;
  /** Not tried again before this time (ms). */
  readonly retryAtMs: number;
}

interface ListFailureInput {
  readonly policy: FailedPolicy;
  /** The rules whose existing triggers were being listed. */
  readonly rules: readonly string[];
  /** The list that failed: undefined when the failure was not a list (the message says what). */
  readonly list?: { readonly verb: string; readonly kind: string; readonly namespace: string };
  /** The API server's answer (or why none came). */
  readonly error: string;
  readonly previous: ListFailureState | undefined;
  readonly nowMs: number;
  readonly instance: string;
  readonly suffix: string;
}

interface ListFailureDecision {
  readonly state: ListFailureState;
  readonly message: string;
  /** The Event to write; undefined when the same failure was already reported. */
  readonly event?: JsonObject;
}

export function reconcileListFailure(input: ListFailureInput): ListFailureDecision {
  const l = input.list;
  const what =
    l === undefined
      ? "cannot find the existing triggers"
      : `cannot ${l.verb} the existing triggers of kind ${l.kind} ${l.namespace === "" ? "in every namespace" : `in namespace ${l.namespace}`}`;
  const message = `${what}: ${input.error}; grant the background controller's ServiceAccount ${l?.verb ?? "get and list"} on them (the existing triggers get nothing until then)`;
  const attempts = input.previous?.message === message ? input.previous.attempts + 1 : 1;
  const wait = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempts - 1));
  const state = { message, attempts, retryAtMs: input.nowMs + wait };
  if (input.previous?.message === message) return { state, message };
  const event = policyErrorEvent({
    policy: input.policy,
    rules: input.rules,
    message,
    now: new Date(input.nowMs),
    instance: input.instance,
    suffix: input.suffix,
  });
  return { state, message, event };
}
