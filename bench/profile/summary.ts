/**
 * `node dist/bench/profile/summary.js FILE.cpuprofile...`: where the CPU of the given profiles
 * (serve-hook.ts's windows, or `--cpu-prof` files) went: busy and idle time, then the functions by
 * self time and by inclusive time (a function counted once per sample however often it recurs), each
 * with its share of the busy time. `PROFILE_TOP` (default 40) rows each.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const top = Number(process.env["PROFILE_TOP"] ?? 40);
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let busy = 0;
let idle = 0;

const nameOf = (n: ProfileNode): string => {
  const where = n.callFrame.url.replace(/^.*\/(dist\/|node:)/, "$1");
  return `${n.callFrame.functionName || "(anonymous)"} ${where}:${n.callFrame.lineNumber + 1}`;
};
const add = (m: Map<string, number>, k: string, ms: number): void => void m.set(k, (m.get(k) ?? 0) + ms);

for (const file of process.argv.slice(2)) {
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  p.samples.forEach((id, i) => {
    // A sample's time is the delta to the next sample.
    const ms = (p.timeDeltas[i + 1] ?? p.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(id);
    if (node === undefined) return;
    if (node.callFrame.functionName === "(idle)") {
      idle += ms;
      return;
    }
    busy += ms;
    add(self, nameOf(node), ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = byId.get(at);
      if (n === undefined) break;
      const k = nameOf(n);
      if (!seen.has(k)) add(inclusive, k, ms);
      seen.add(k);
    }
  });
}

const rows = (m: Map<string, number>): string =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(
      ([k, ms]) => `${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / Math.max(busy, 1)).toFixed(1).padStart(5)} %  ${k}`,
    )
    .join("\n");
console.log(
  `busy ${busy.toFixed(0)} ms, idle ${idle.toFixed(0)} ms\n-- self --\n${rows(self)}\n-- inclusive --\n${rows(inclusive)}`,
);
