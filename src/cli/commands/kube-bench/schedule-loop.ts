/**
 * `bylaw kube-bench --schedule`: run once at start, then at each tick of a cron schedule (the same
 * forms as a cleanup policy's `spec.schedule`), one run at a time. A run that outlasts the next tick
 * makes that tick pass (the next run is planned from when a run ends), so a node reports at most once
 * per tick. Stops, between runs or at once while waiting, when `signal` aborts.
 */
import { nextRun } from "../../../controllers/cleanup/schedule.js";

interface ScheduleLoop {
  readonly schedule: string;
  /** One run; its failures are its own to report (the loop goes on). */
  readonly tick: () => Promise<void>;
  readonly signal: AbortSignal;
  /** Told when the next run is due (ms since the epoch). */
  readonly onPlanned?: (at: number) => void;
  readonly now?: () => number;
  readonly sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(finish, ms);
    function finish() {
      clearTimeout(timer);
      signal.removeEventListener("abort", finish);
      done();
    }
    signal.addEventListener("abort", finish, { once: true });
  });
}

/** Runs until `signal` aborts; an error only for a schedule that cannot be read or never fires again. */
export async function runOnSchedule(loop: ScheduleLoop): Promise<{ ok: true } | { ok: false; error: string }> {
  const now = loop.now ?? Date.now;
  const sleep = loop.sleep ?? abortableSleep;
  const first = nextRun(loop.schedule, now());
  if (!first.ok) return first;
  while (!loop.signal.aborted) {
    await loop.tick();
    if (loop.signal.aborted) break;
    const next = nextRun(loop.schedule, now());
    if (!next.ok) return next;
    loop.onPlanned?.(next.at);
    await sleep(Math.max(0, next.at - now()), loop.signal);
  }
  return { ok: true };
}
