/**
 * A process's CPU time from /proc (utime + stime, in seconds), in all and per thread name
 * (/proc/PID/task/TID/comm: Node's main thread and worker threads, V8's GC helpers "V8 DefaultWorke",
 * libuv's "libuv-worker"), so a bench can say where the seconds went without a profiler.
 */
import { readdirSync, readFileSync } from "node:fs";

function statSeconds(path: string): number {
  const fields = readFileSync(path, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The process's CPU seconds, all threads, the exited ones included. */
export function cpuSeconds(pid: number): number {
  return statSeconds(`/proc/${pid}/stat`);
}

/** CPU seconds per thread name (threads of one name summed); threads that exited are not listed. */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      const label = tid === String(pid) ? `${name} (main)` : name;
      out.set(label, (out.get(label) ?? 0) + statSeconds(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** `after - before` per thread name, largest first, as "name 12.3 s" parts. */
export function threadCpuDelta(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([name, s]) => [name, s - (before.get(name) ?? 0)] as const)
    .filter(([, s]) => s >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, s]) => `${name} ${s.toFixed(1)} s`)
    .join(", ");
}
