/**
 * The Events flags: `--event-component-prefix` (the reporting components' names: Kyverno's
 * `kyverno-admission`, … by default), `--max-queued-events` (Kyverno's `--maxQueuedEvents`) and
 * `--omit-events` (Kyverno's `--omitEvents`; by default PolicyApplied and PolicySkipped, as
 * Kyverno's Helm chart installs it), checked.
 */
import { EVENT_REASONS } from "../../../controllers/events/index.js";
import type { EventSettings } from "../../../server/app/events-setup.js";

export const EVENT_FLAG_OPTIONS = {
  "event-component-prefix": { type: "string", default: "kyverno" },
  "max-queued-events": { type: "string", default: "1000" },
  "omit-events": { type: "string", default: "PolicyApplied,PolicySkipped" },
} as const;

/** The settings, or what is wrong with a flag. */
export function eventSettings(values: {
  readonly "event-component-prefix"?: string | undefined;
  readonly "max-queued-events"?: string | undefined;
  readonly "omit-events"?: string | undefined;
}): { ok: true; value: EventSettings } | { ok: false; error: string } {
  const prefix = values["event-component-prefix"] ?? "kyverno";
  // A reportingController must be a qualified name; the prefix is its first label.
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(prefix) || prefix.length > 100)
    return {
      ok: false,
      error: `--event-component-prefix must be lowercase letters, digits, '-' and '.' (got ${JSON.stringify(prefix)})`,
    };
  const text = values["max-queued-events"] ?? "1000";
  const maxQueued = Number(text);
  if (!Number.isInteger(maxQueued) || maxQueued < 0)
    return {
      ok: false,
      error: `--max-queued-events must be a whole number, 0 for no Events (got ${JSON.stringify(text)})`,
    };
  const omit = (values["omit-events"] ?? EVENT_FLAG_OPTIONS["omit-events"].default)
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const unknown = omit.find((r) => !(EVENT_REASONS as readonly string[]).includes(r));
  if (unknown !== undefined)
    return {
      ok: false,
      error: `--omit-events takes a list of ${EVENT_REASONS.join(", ")} (got ${JSON.stringify(unknown)})`,
    };
  return { ok: true, value: { componentPrefix: prefix, maxQueued, omit } };
}
