/**
 * What evaluation workers in cluster mode cost (issue 32 §6, docs/adr/0018-workers-in-cluster-mode.md):
 *
 * 1. An ordinary review (light: it never leaves its batch), in-process through handleValidateBatch,
 *    paired (bench/paired.ts: alternating child processes, CPU time): A without a runner (cluster
 *    mode before: no workers), B with a worker pool bridged to live context (cluster mode now). The
 *    ordinary review takes the same path in both; B/A is the noise of the measurement.
 * 2. The bridge: µs per live-context call a worker forwards to the main thread (a foreach whose
 *    every element reads another ConfigMap), and per call answered from the job's memo (every element
 *    the same ConfigMap), each over the same foreach with the calls answered in-process.
 *
 *   npm run bench:workers
 */
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { type ContextSources, createEngine, type EngineRequest, ok } from "../src/engine/index.js";
import { handleValidateBatch } from "../src/server/admission/index.js";
import { createWorkerPool } from "../src/server/worker/worker-pool.js";
import type { PolicySnapshot } from "../src/server/types.js";
import { clusterPolicy, pod, podRule } from "../test/support/builders.js";
import { fakeContext, fakePorts } from "../test/support/fake-ports.js";
import { fakeDeps, reviewOf } from "../test/support/fake-admission-deps.js";
import { runArm, runPaired, type PairedCase } from "./paired.js";

const ORDINARY = [
  clusterPolicy(
    "team",
    [podRule("team", { message: "label team is required", pattern: { metadata: { labels: { team: "?*" } } } })],
    { validationFailureAction: "Enforce" },
  ),
  clusterPolicy("restricted", [podRule("restricted", { podSecurity: { level: "restricted", version: "latest" } })]),
  clusterPolicy("baseline", [podRule("baseline", { podSecurity: { level: "baseline", version: "latest" } })]),
];

const CASES: Record<string, PairedCase> = {
  ordinary: {
    label: "ordinary review, handleValidateBatch in-process",
    arms: ["no workers", "bridged workers"],
    setup: () => {
      const plain = fakeDeps({ policies: ORDINARY }).deps;
      const now = (): number => performance.now() / 1000;
      const pooled = {
        ...plain,
        runner: createWorkerPool({ size: 1, now, context: fakeContext({ configMaps: {} }) }),
      };
      const review = reviewOf(pod({ name: "web", labels: { team: "t" } }));
      return [
        () => void handleValidateBatch([review], plain, "fail"),
        () => void handleValidateBatch([review], pooled, "fail"),
      ];
    },
  },
};

/** A foreach of `n` elements, each reading ConfigMap `name` (a template over the element, or fixed). */
function perElement(name: string): PolicySnapshot {
  const engine = createEngine(fakePorts());
  const doc = clusterPolicy("per-element", [
    podRule("per-element", {
      foreach: [
        {
          list: "request.object.spec.containers",
          context: [{ name: "cfg", configMap: { name, namespace: "team" } }],
          deny: { conditions: { any: [{ key: "{{ cfg.data.x }}", operator: "Equals", value: "no" }] } },
        },
      ],
    }),
  ]);
  const r = engine.compile(doc);
  if (!r.ok) throw new Error("did not compile");
  return { policies: [r.policy], generation: 1, loadedAt: 0 };
}

async function bridgeCost(): Promise<void> {
  const n = 20_000;
  const context: ContextSources = { ...fakeContext({ configMaps: {} }), configMap: () => ok({ data: { x: "ok" } }) };
  const now = (): number => performance.now() / 1000;
  const pool = createWorkerPool({ size: 1, now, context });
  const engine = createEngine({ ...fakePorts(), context });
  const resource = pod({
    name: "p",
    namespace: "team",
    containers: Array.from({ length: n }, (_, i) => ({ name: `c${i}`, image: "nginx:1.27" })),
  });
  const request: EngineRequest = { resource, operation: "CREATE", namespaceLabels: {} };
  for (const [label, name] of [
    ["forwarded (another ConfigMap per element)", "{{ element.name }}"],
    ["memo hit (the same ConfigMap)", "same"],
  ] as const) {
    const snapshot = perElement(name);
    const inWorker: number[] = [];
    const inline: number[] = [];
    for (let round = 0; round < 5; round++) {
      let t = now();
      const outcome = await pool.run({
        snapshot,
        policies: snapshot.policies,
        request,
        object: resource,
        deadlineAt: t + 60,
      });
      inWorker.push(outcome.done[0]?.seconds ?? NaN);
      t = now();
      engine.validate(snapshot.policies[0] as (typeof snapshot.policies)[number], request);
      inline.push(now() - t);
    }
    const [w, i] = [median(inWorker), median(inline)];
    console.log(
      `bridge, ${label}: ${((w * 1e6) / n).toFixed(2)} µs per element in a worker, ${((i * 1e6) / n).toFixed(2)} µs in-process: ${(((w - i) * 1e6) / n).toFixed(2)} µs per call (median of 5 × ${n} elements)`,
    );
  }
  await pool.close();
}

function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
}

const [, , name, arm] = process.argv;
if (name !== undefined && arm !== undefined) {
  runArm(CASES, name, arm);
  // The pool's idle worker would keep the child alive.
  process.exit(0);
} else {
  runPaired(fileURLToPath(import.meta.url), CASES);
  await bridgeCost();
}
