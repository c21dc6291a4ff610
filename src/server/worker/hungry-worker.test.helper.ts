/** A worker that keeps every value it builds on a run (for the pool's heap-bound test): it outgrows any heap. */
import { parentPort } from "node:worker_threads";

const kept: string[][] = [];
parentPort?.on("message", (m: { type: string }) => {
  if (m.type !== "run") return;
  for (let i = 0; ; i++) kept.push(Array.from({ length: 10_000 }, (_, j) => `${i}:${j}`));
});
