/**
 * CPU profiles of the `bylaw serve` process during a cluster bench (`--cpu-prof` is refused in
 * NODE_OPTIONS, and the benches start Bylaw through scripts/cluster.sh): loaded with
 * `BYLAW_CLUSTER_NODE_ARGS=--import=./dist/bench/profile/serve-hook.js`, it profiles only a process
 * whose arguments hold `serve` and writes one `.cpuprofile` per window (`PROFILE_WINDOW_MS`, default
 * 15,000) into `PROFILE_DIR` (default the working directory), sampled every 500 µs, so the windows can
 * be matched to a bench's phases by time. Read them with `node dist/bench/profile/summary.js FILES`.
 */
import { Session } from "node:inspector";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

if (process.argv.includes("serve")) {
  const dir = process.env["PROFILE_DIR"] ?? process.cwd();
  const windowMs = Number(process.env["PROFILE_WINDOW_MS"] ?? 15_000);
  const session = new Session();
  session.connect();
  let n = 0;
  const start = (): void =>
    session.post("Profiler.enable", () =>
      session.post("Profiler.setSamplingInterval", { interval: 500 }, () => session.post("Profiler.start")),
    );
  const dump = (): void =>
    session.post("Profiler.stop", (error, result) => {
      if (error === null)
        writeFileSync(
          join(dir, `serve-${String(n++).padStart(3, "0")}-${Date.now()}.cpuprofile`),
          JSON.stringify(result.profile),
        );
      start();
    });
  start();
  setInterval(dump, windowMs).unref();
}
