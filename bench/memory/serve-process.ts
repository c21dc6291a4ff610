/**
 * One `bylaw serve` child per workload, on loopback, with its resident memory sampled every 50 ms
 * (the peak of the samples and the kernel's VmHWM are both reported).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:https";
import { rssMiB, peakRssMiB } from "../webhook/load.js";

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** Stops sampling and returns the peak RSS seen, in MiB (the larger of the samples and VmHWM). */
  peak(): number;
  stop(): Promise<void>;
}

export async function startServe(
  nodeArgs: readonly string[],
  bylaw: string,
  args: readonly string[],
  port: number,
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...nodeArgs, bylaw, "serve", ...args, "--port", String(port)], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  for (let i = 0; i < 300 && !(await ready(port)); i++) await new Promise((r) => setTimeout(r, 100));
  const pid = child.pid ?? 0;
  let sampled = 0;
  const timer = setInterval(() => {
    try {
      sampled = Math.max(sampled, rssMiB(pid));
    } catch {
      // the process is gone
    }
  }, 50);
  return {
    child,
    port,
    peak() {
      clearInterval(timer);
      let hwm = 0;
      try {
        hwm = peakRssMiB(pid);
      } catch {
        // gone
      }
      return Math.max(sampled, hwm);
    },
    stop() {
      clearInterval(timer);
      return new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      });
    },
  };
}

function ready(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/health/readiness", rejectUnauthorized: false, agent: false },
      (r) => {
        r.resume();
        resolve(r.statusCode === 200);
      },
    );
    req.on("error", () => resolve(false));
    req.end();
  });
}
