/**
 * A cleanup policy's schedule: the next time after a given one it fires, as Kyverno's cron library
 * reads `spec.schedule` (`cron.ParseStandard`: five fields, the `@hourly`-style descriptors,
 * `@every <duration>`, an optional `TZ=`/`CRON_TZ=` zone; UTC otherwise). The five fields and the
 * descriptors are computed by croner; `@every` is the given time plus the duration, as Go's
 * constant-delay schedule counts it (rounded down to the second).
 */
import { Cron } from "croner";
import { parseDurationMillis } from "../../engine/index.js";

/** The first run strictly after `afterMs` (ms since the epoch), or an error naming the schedule. */
export function nextRun(schedule: string, afterMs: number): { ok: true; at: number } | { ok: false; error: string } {
  let spec = schedule.trim();
  let timezone = "UTC";
  const zone = /^(?:CRON_TZ|TZ)=(\S+)\s+/.exec(spec);
  if (zone !== null) {
    timezone = zone[1] ?? "UTC";
    spec = spec.slice(zone[0].length);
  }
  if (spec.startsWith("@every ")) {
    const ms = parseDurationMillis(spec.slice("@every ".length).trim());
    if (ms === undefined) return { ok: false, error: `schedule ${JSON.stringify(schedule)}: not a duration` };
    const step = Math.max(1000, Math.floor(ms / 1000) * 1000);
    return { ok: true, at: Math.floor(afterMs / 1000) * 1000 + step };
  }
  try {
    const next = new Cron(spec, { timezone, paused: true }).nextRun(new Date(afterMs));
    if (next === null) return { ok: false, error: `schedule ${JSON.stringify(schedule)} never fires again` };
    return { ok: true, at: next.getTime() };
  } catch (e) {
    return { ok: false, error: `schedule ${JSON.stringify(schedule)}: ${(e as Error).message}` };
  }
}
