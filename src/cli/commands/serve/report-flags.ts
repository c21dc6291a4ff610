/**
 * The flags of the reports controller (`--background-scan-interval`, Kyverno's
 * `--backgroundScanInterval`; `--background-scan-workers`, Kyverno's `--backgroundScanWorkers`;
 * `--openreports-enabled`, Kyverno's `--openreportsEnabled`), checked.
 */
import { parseDuration } from "./duration.js";

export const REPORT_FLAG_OPTIONS = {
  "background-scan-interval": { type: "string", default: "1h" },
  "background-scan-workers": { type: "string", default: "8" },
  "openreports-enabled": { type: "boolean", default: false },
} as const;

/** How often every resource is scanned again (ms), or what is wrong with the flag. */
export function backgroundScanInterval(values: {
  readonly "background-scan-interval"?: string | undefined;
}): { ok: true; value: number } | { ok: false; error: string } {
  const text = values["background-scan-interval"] ?? "1h";
  const ms = parseDuration(text);
  return ms === undefined
    ? {
        ok: false,
        error: `--background-scan-interval must be a duration such as 1h or 30m (got ${JSON.stringify(text)})`,
      }
    : { ok: true, value: ms };
}

/** Reports a scan pass writes at once when the flag is not given: Kyverno's `--backgroundScanWorkers` default. */
export const BACKGROUND_SCAN_WORKERS = 8;

/** How many reports a scan pass writes at once, or what is wrong with the flag. */
export function backgroundScanWorkers(values: {
  readonly "background-scan-workers"?: string | undefined;
}): { ok: true; value: number } | { ok: false; error: string } {
  const text = values["background-scan-workers"] ?? String(BACKGROUND_SCAN_WORKERS);
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 && n <= 256
    ? { ok: true, value: n }
    : {
        ok: false,
        error: `--background-scan-workers must be a whole number from 1 to 256 (got ${JSON.stringify(text)})`,
      };
}
