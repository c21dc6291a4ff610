/**
 * The worker pool's waiting jobs, one queue per namespace (the reviewed object's; "" for
 * cluster-scoped objects), served so that one namespace's heavy reviews cannot take the workers
 * from another's: the next job comes from the namespace holding the fewest workers, among those
 * under the cap, and among equals from the one served longest ago (round robin).
 */
export class FairQueue<J> {
  /** Insertion order is the round-robin order: a namespace served moves to the end. */
  private readonly queues = new Map<string, J[]>();

  push(key: string, job: J): void {
    const q = this.queues.get(key);
    if (q === undefined) this.queues.set(key, [job]);
    else q.push(job);
  }

  /** Removes a job (settled while waiting); false when it was not waiting. */
  remove(key: string, job: J): boolean {
    const q = this.queues.get(key);
    const i = q?.indexOf(job) ?? -1;
    if (q === undefined || i < 0) return false;
    q.splice(i, 1);
    if (q.length === 0) this.queues.delete(key);
    return true;
  }

  /** The next job for a free worker, from a namespace holding fewer than `cap` workers (`held`); undefined when none may run. */
  take(held: (key: string) => number, cap: number): { key: string; job: J } | undefined {
    let best: string | undefined;
    let fewest = cap;
    for (const key of this.queues.keys()) {
      const h = held(key);
      if (h < fewest) [best, fewest] = [key, h];
    }
    if (best === undefined) return undefined;
    const q = this.queues.get(best) as J[];
    const job = q.shift() as J;
    this.queues.delete(best);
    if (q.length > 0) this.queues.set(best, q);
    return { key: best, job };
  }

  /** Every waiting job (for shutdown). */
  all(): J[] {
    return [...this.queues.values()].flat();
  }
}
