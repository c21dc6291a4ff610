/**
 * The flags of the reports controller (`--background-scan-interval`, Kyverno's
 * `--backgroundScanInterval`; `--openreports-enabled`, Kyverno's `--openreportsEnabled`), checked.
 */
import { parseDuration } from "./duration.js";

export const REPORT_FLAG_OPTIONS = {
  "background-scan-interval": { type: "string", default: "1h" },
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
