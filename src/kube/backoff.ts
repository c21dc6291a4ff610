/**
 * Exponential backoff with full jitter for watch and list retries (client-go's informers back off
 * the same way): attempt n waits a random time in [base·2^n / 2, base·2^n], capped at `maxMs`.
 * Randomness is injected, so tests pin the delays.
 */
import type { Random } from "../engine/index.js";

interface BackoffOptions {
  readonly baseMs: number;
  readonly maxMs: number;
  readonly random: Random;
}

export class Backoff {
  private attempt = 0;
  constructor(private readonly options: BackoffOptions) {}

  /** The delay before the next retry; each call without a `reset` doubles the ceiling. */
  next(): number {
    const ceiling = Math.min(this.options.maxMs, this.options.baseMs * 2 ** Math.min(this.attempt, 30));
    this.attempt++;
    return Math.round(ceiling / 2 + (ceiling / 2) * this.options.random.next());
  }

  /** After a success: the next failure starts from the base again. */
  reset(): void {
    this.attempt = 0;
  }

  get failures(): number {
    return this.attempt;
  }
}
