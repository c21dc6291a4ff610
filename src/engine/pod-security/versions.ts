/**
 * Levels and versions as Kyverno's `evaluatePSS` applies them:
 * - `baseline` runs the baseline checks; `restricted` — and also `privileged`, which Kyverno does
 *   not special-case — runs every check.
 * - `latest` runs the newest version of each check.
 * - a pinned `v1.<minor>` runs every version of a check introduced at or before that minor, each
 *   one reporting on its own, so a check with two applicable versions can fail twice (and an older
 *   version without the v1.25 Windows exemption still applies to Windows pods).
 */
import type { CheckDefinition, VersionedCheck } from "./check-types.js";
import type { PssLevel, PssVersion } from "./types.js";

export const LEVELS: readonly PssLevel[] = ["privileged", "baseline", "restricted"];

/** `latest` (or no version) or `v1.<minor>`; undefined for anything else. */
export function parseVersion(text: string): PssVersion | undefined {
  if (text === "" || text === "latest") return "latest";
  const m = /^v1\.(0|[1-9][0-9]{0,3})$/.exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

export function appliesAtLevel(check: CheckDefinition, level: PssLevel): boolean {
  return level !== "baseline" || check.level === "baseline";
}

export function versionsToRun(check: CheckDefinition, version: PssVersion): readonly VersionedCheck[] {
  if (version === "latest") {
    const newest = check.versions.reduce<VersionedCheck | undefined>(
      (best, v) => (best === undefined || v.minor >= best.minor ? v : best),
      undefined,
    );
    return newest === undefined ? [] : [newest];
  }
  return check.versions.filter((v) => v.minor <= version);
}
