/**
 * Paired timing of two ways to do the same work. Each arm runs in its own child process, so the JIT
 * shapes code for that arm alone (two arms timed in one process tune shared code for each other and
 * make calls through one site polymorphic); the processes alternate, A B, B A, A B, …, so that load
 * on a shared machine falls on both alike. Time is the child's CPU time (user + system, GC threads
 * included), not wall time, which on a busy shared machine measures the neighbours. Prints the
 * median ns per call of each arm and B/A.
 */
import { spawnSync } from "node:child_process";

/** A case: its label, the names of its arms, and, in the child, the work of each arm. */
export interface PairedCase {
  readonly label: string;
  readonly arms: readonly [string, string];
  readonly setup: () => readonly [() => void, () => void];
}

const ROUNDS = 7;
/** Each arm warms up, then is timed, for about this much CPU time in its child (µs). */
const RUN_US = 400_000;

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** In a child: the ns per call of one arm. */
export function timeArm(fn: () => void): number {
  let n = 1;
  for (;;) {
    const t = cpuMicros();
    for (let i = 0; i < n; i++) fn();
    if (cpuMicros() - t > RUN_US / 8) break;
    n *= 2;
  }
  const calls = n * 8;
  const t = cpuMicros();
  for (let i = 0; i < calls; i++) fn();
  return ((cpuMicros() - t) * 1000) / calls;
}

/** In the parent: runs every case's arms (or those whose names start with one of `only`) in alternating child processes (`node script <case> <arm>`). */
export function runPaired(
  script: string,
  cases: Readonly<Record<string, PairedCase>>,
  only: readonly string[] = [],
): void {
  const samples = new Map<string, [number[], number[]]>();
  const names = Object.keys(cases).filter((n) => only.length === 0 || only.some((o) => n.startsWith(o)));
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of names) {
      const pair = samples.get(name) ?? [[], []];
      samples.set(name, pair);
      for (const arm of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const child = spawnSync(process.execPath, [script, name, String(arm)], { encoding: "utf8" });
        const ns = Number(child.stdout.trim());
        if (child.status !== 0 || !Number.isFinite(ns)) throw new Error(`${name} arm ${arm}: ${child.stderr}`);
        pair[arm]?.push(ns);
      }
    }
  }
  for (const [name, [a, b]] of samples) {
    const c = cases[name];
    if (c === undefined) continue;
    const ma = median(a);
    const mb = median(b);
    console.log(
      `${c.label}: ${c.arms[0]} ${formatNs(ma)} | ${c.arms[1]} ${formatNs(mb)} per call (${(mb / ma).toFixed(2)}×), median of ${ROUNDS} alternating processes each`,
    );
  }
}

/** In a child: prints the ns per call of `arm` of `name`. */
export function runArm(cases: Readonly<Record<string, PairedCase>>, name: string, arm: string): void {
  const c = cases[name];
  if (c === undefined) throw new Error(`no case ${name}`);
  const fn = c.setup()[arm === "1" ? 1 : 0];
  console.log(String(timeArm(fn)));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function formatNs(ns: number): string {
  return ns >= 10_000 ? `${(ns / 1000).toFixed(1)} µs` : `${ns.toFixed(0)} ns`;
}
