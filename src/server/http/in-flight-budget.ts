/**
 * A global budget for the request bytes the webhook holds at once: bodies being read, bodies
 * waiting for their batch, and bodies being evaluated, until their answer is written. A parsed
 * AdmissionReview takes a few times its text in memory, so this bound, not the number of
 * requests, is what keeps sixteen concurrent 6.4 MB UPDATEs from exhausting the heap.
 *
 * A request past the budget is refused with 503 at once, before its body is read. The API server
 * treats a non-200 answer as a failed webhook call and applies the webhook's failurePolicy (Fail
 * rejects the write, Ignore lets it through), which is the only answer that can be given without
 * reading the body's uid. When nothing is in flight, any request within the body cap is taken,
 * so a budget smaller than one body never refuses everything.
 */
export class InFlightBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  /** Takes `bytes` if they fit (or if nothing is held); O(1). */
  take(bytes: number): boolean {
    if (this.used > 0 && this.used + bytes > this.maxBytes) return false;
    this.used += bytes;
    return true;
  }

  /** Takes `bytes` more for a request that holds `held` already, if they fit or if it is the only one holding any. */
  takeMore(bytes: number, held: number): boolean {
    if (this.used > held && this.used + bytes > this.maxBytes) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  /** Bytes held now. */
  get inUse(): number {
    return this.used;
  }
}
