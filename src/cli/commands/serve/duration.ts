/**
 * Durations of serve's flags: Go's form (`500ms`, `15s`, `1h30m`) plus `d` for days, without
 * signs or sub-millisecond units; whole milliseconds, or undefined when malformed or not positive.
 * The arithmetic is the engine's Go duration parser; this module holds only the flags' narrower form.
 */
import { parseDurationMillis } from "../../../engine/index.js";

const FLAG_FORM = /^(\d+(\.\d+)?(ms|s|m|h|d))+$/;

export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (!FLAG_FORM.test(s)) return undefined;
  const ms = parseDurationMillis(s, { days: true });
  return ms !== undefined && ms > 0 ? Math.round(ms) : undefined;
}
