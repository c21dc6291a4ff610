/** Drive one HTTPS endpoint with autocannon and read the server process's CPU time and RSS. */
import { readFileSync } from "node:fs";
import autocannon from "autocannon";

export interface LoadResult {
  readonly requests: number;
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly cpuMicrosPerRequest: number;
}

export async function drive(
  url: string,
  bodies: readonly string[],
  pid: number,
  options: { seconds: number; connections: number; rate?: number },
): Promise<LoadResult> {
  let i = 0;
  const cpuBefore = cpuMicros(pid);
  const result = await autocannon({
    url,
    method: "POST",
    headers: { "content-type": "application/json" },
    connections: options.connections,
    duration: options.seconds,
    ...(options.rate !== undefined ? { overallRate: options.rate } : {}),
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: bodies[i++ % bodies.length] }) }],
  } as unknown as autocannon.Options);
  const cpu = cpuMicros(pid) - cpuBefore;
  const total = result.requests.total;
  return {
    requests: total,
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuMicrosPerRequest: total > 0 ? cpu / total : 0,
  };
}

/** utime + stime of a process, in µs (Linux /proc; clock ticks of 10 ms). */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return ticks * 10_000;
}

export function rssMiB(pid: number): number {
  return statusMiB(pid, "VmRSS");
}

/** The most resident memory the process has had (VmHWM), in MiB. */
export function peakRssMiB(pid: number): number {
  return statusMiB(pid, "VmHWM");
}

function statusMiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
  return m ? Number(m[1]) / 1024 : 0;
}
