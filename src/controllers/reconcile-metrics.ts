/**
 * What the controllers' loops tell /metrics about each item they finish, for Kyverno's controller
 * counters (its `pkg/controllers` work queues): `kyverno_controller_reconcile_total` counts every
 * item a loop finished, `kyverno_controller_requeue_total` those that failed and will be tried again
 * (`num_requeues`: the how-manieth try is next), `kyverno_controller_drop_total` those given up after
 * their last retry; each labelled `controller_name` with Kyverno's name for the controller.
 * src/server/metrics/controller-counters.ts counts them; the loops only say how an item ended.
 */

/** Kyverno's names of the controllers whose work Bylaw does. */
export const CONTROLLER_NAMES = {
  /** UpdateRequests: generate and mutate-existing work (src/controllers/generate/). */
  updateRequests: "update-request-controller",
  /** Background scans of the reports controller (src/controllers/reports/). */
  backgroundScan: "background-scan-controller",
  /** Cleanup policies' runs (src/controllers/cleanup/). */
  cleanup: "cleanup-controller",
} as const;

type ControllerName = (typeof CONTROLLER_NAMES)[keyof typeof CONTROLLER_NAMES];

type ReconcileResult =
  | { readonly result: "done" }
  | { readonly result: "requeued"; readonly requeues: number }
  | { readonly result: "dropped" };

/** One item finished by a controller's loop. */
export type OnReconciled = (controller: ControllerName, result: ReconcileResult) => void;

/**
 * How an attempt ended, as a result: succeeded (or failed for good for a reason retrying cannot
 * change: done, its failure is in its status), failed and tried again (requeued, `tries` so far),
 * or failed and out of retries (dropped).
 */
export function reconcileResult(attempt: {
  readonly failed: boolean;
  readonly retry: boolean;
  readonly transient: boolean;
  readonly tries: number;
}): ReconcileResult {
  if (!attempt.failed || !attempt.transient) return { result: "done" };
  return attempt.retry ? { result: "requeued", requeues: attempt.tries } : { result: "dropped" };
}
