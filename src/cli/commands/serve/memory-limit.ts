/**
 * The container's memory limit, which the webhook's memory bounds are derived from: cgroup v2's
 * `memory.max`, else cgroup v1's `memory.limit_in_bytes` (a container sees its own cgroup at
 * /sys/fs/cgroup). "max", or v1's near-2^63 "unlimited", means no limit.
 */
import { readFileSync } from "node:fs";

export const CGROUP_V2_MEMORY_MAX = "/sys/fs/cgroup/memory.max";
export const CGROUP_V1_MEMORY_LIMIT = "/sys/fs/cgroup/memory/memory.limit_in_bytes";
/** v1 reports "no limit" as a page-rounded 2^63 - 1; anything this large is no limit. */
const UNLIMITED = 2 ** 60;

export function containerMemoryLimit(read: (path: string) => string | undefined = readOrUndefined): number | undefined {
  for (const path of [CGROUP_V2_MEMORY_MAX, CGROUP_V1_MEMORY_LIMIT]) {
    const text = read(path)?.trim();
    if (text === undefined || text === "") continue;
    if (text === "max") return undefined;
    const n = Number(text);
    if (Number.isFinite(n) && n > 0) return n >= UNLIMITED ? undefined : n;
  }
  return undefined;
}

function readOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

const UNITS: Readonly<Record<string, number>> = {
  "": 1,
  k: 1e3,
  m: 1e6,
  g: 1e9,
  ki: 1024,
  mi: 1024 ** 2,
  gi: 1024 ** 3,
};

/** "268435456", "256Mi", "512M", "1Gi" (Kubernetes' quantity suffixes) in bytes; undefined if not one. */
export function parseByteSize(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)\s*([kKmMgG]i?)?$/.exec(text.trim());
  if (m === null) return undefined;
  const unit = UNITS[(m[2] ?? "").toLowerCase()];
  return unit === undefined ? undefined : Math.floor(Number(m[1]) * unit);
}

/**
 * The in-flight budget from the memory limit: a tenth of it (25.6 MiB of 256 MiB: three 6.4 MB
 * UPDATEs at once; a parsed review takes two to four times its text, and the baseline with the
 * policies loaded takes a good part of the rest; with an eighth, 16 concurrent 6.4 MB UPDATEs
 * peaked at 205 of 256 MiB in bench:memory, too close to the limit), and at least one body. Without a limit, four bodies (at least 4 MiB).
 */
export function defaultInFlightBytes(limitBytes: number | undefined, maxBodyBytes: number): number {
  if (limitBytes === undefined) return Math.max(4 * maxBodyBytes, 4 * 1024 * 1024);
  return Math.max(maxBodyBytes, Math.floor(limitBytes / 10));
}
