/**
 * An open-loop load generator for the fixed-rate runs: request k is due at start + k/rate, whether
 * or not earlier answers came back, and its latency is measured from when it was due. A closed-loop
 * tool (or one that sends in bursts) hides queueing behind a slow answer and reports the client's
 * own bursts as server latency; this one does neither. The first second runs at the same rate
 * unmeasured, so that TLS handshakes of new connections and JIT warm-up are not counted.
 */
import { Agent, request } from "node:https";
import { cpuMicros } from "./load.js";

export interface OpenLoopResult {
  readonly sent: number;
  readonly completed: number;
  readonly errors: number;
  readonly non2xx: number;
  /** Achieved answers per second over the run. */
  readonly perSecond: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly cpuMicrosPerRequest: number;
}

export async function openLoop(
  url: string,
  bodies: readonly string[],
  pid: number,
  options: { rate: number; seconds: number; connections: number },
): Promise<OpenLoopResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections, rejectUnauthorized: false });
  await run(url, bodies, pid, agent, { rate: options.rate, seconds: 1 });
  const result = await run(url, bodies, pid, agent, options);
  agent.destroy();
  return result;
}

async function run(
  url: string,
  bodies: readonly string[],
  pid: number,
  agent: Agent,
  options: { rate: number; seconds: number },
): Promise<OpenLoopResult> {
  const target = new URL(url);
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  let sent = 0;
  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const cpuBefore = cpuMicros(pid);
  const start = performance.now();
  const inFlight = new Set<Promise<void>>();

  const send = (due: number, body: string): void => {
    const done = new Promise<void>((resolve) => {
      const req = request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on("end", () => {
            if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) non2xx++;
            latencies.push(performance.now() - due);
            resolve();
          });
        },
      );
      req.on("error", () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
  };

  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      while (sent < total && start + sent * interval <= now) {
        send(start + sent * interval, bodies[sent % bodies.length] ?? "{}");
        sent++;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, Math.max(0, Math.min(1, start + sent * interval - performance.now())));
    };
    tick();
  });
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  const cpu = cpuMicros(pid) - cpuBefore;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    sent,
    completed: latencies.length,
    errors,
    non2xx,
    perSecond: latencies.length / elapsed,
    p50: round(at(0.5)),
    p99: round(at(0.99)),
    max: round(latencies[latencies.length - 1] ?? 0),
    cpuMicrosPerRequest: latencies.length > 0 ? cpu / latencies.length : 0,
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
