/** A worker that never finishes a job (for the pool's termination test): it spins on every run. */
import { parentPort } from "node:worker_threads";

parentPort?.on("message", (m: { type: string }) => {
  if (m.type !== "run") return;
  for (;;) {
    // stuck, as an evaluation with no interruption would be
  }
});
