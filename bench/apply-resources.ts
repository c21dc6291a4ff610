/**
 * What `bylaw apply` spends per resource on evaluation, in-process: the 18 Pod Security policies of
 * the corpus (baseline and restricted) against BENCH_PODS Pods (default 2,000; one in four with a
 * container that allows privilege escalation), through processResource as `apply` runs it, with the
 * requests `apply` builds (requestsFor: one shared request per resource, prepared once for every
 * policy) beside a builder that makes each policy its own request (how `apply` built them before
 * 2026-12-07), in alternating rounds. µs per Pod, the median of the rounds. Figures, never verdicts.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CompiledPolicy, EngineRequest, Resource } from "../src/engine/index.js";
import { offlineEngine } from "../src/cli/offline/offline-engine.js";
import { existingResources } from "../src/library/existing-resources.js";
import { processResource } from "../src/library/process-resource.js";
import { buildRequest, requestsFor } from "../src/platform/offline-values/build-request.js";
import { EMPTY_VALUES } from "../src/platform/offline-values/values-file.js";
import { parseDocuments } from "../src/platform/yaml/index.js";

const PODS = Number(process.env["BENCH_PODS"] ?? 2000);
const ROUNDS = 5;

function pod(i: number): Resource {
  const hardened = { allowPrivilegeEscalation: i % 4 !== 0, capabilities: { drop: ["ALL"] }, runAsNonRoot: true };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `pod-${i}`, namespace: `ns-${i % 10}`, labels: { app: `a${i % 7}` } },
    spec: {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      containers: [
        { name: "app", image: `registry.example.com/app:${i}`, securityContext: hardened },
        { name: "side", image: `nginx:1.${i % 20}` },
      ],
    },
  };
}

function policiesOf(corpus: string): CompiledPolicy[] {
  const engine = offlineEngine();
  const out: CompiledPolicy[] = [];
  for (const level of ["baseline", "restricted"]) {
    const dir = join(corpus, "pod-security", level);
    for (const name of readdirSync(dir).sort()) {
      const file = join(dir, name, `${name}.yaml`);
      if (!existsSync(file)) continue;
      for (const doc of parseDocuments(readFileSync(file, "utf8"), file)) {
        const compiled = engine.compile(doc.value ?? null);
        if (compiled.ok) out.push(compiled.policy);
      }
    }
  }
  return out;
}

export function benchApplyResources(repoRoot: string): void {
  const corpus = resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  if (!existsSync(join(corpus, "pod-security"))) {
    console.log(`apply-resources: corpus not found at ${corpus}; skipped`);
    return;
  }
  const engine = offlineEngine();
  const policies = policiesOf(corpus);
  const pods = Array.from({ length: PODS }, (_v, i) => pod(i));
  const existing = existingResources([]);
  const builders: readonly (readonly [string, (r: Resource, p: CompiledPolicy) => EngineRequest])[] = [
    ["a request per policy (before)", (r, p) => buildRequest(r, p, EMPTY_VALUES, undefined)],
    [
      "one request per resource (apply now)",
      requestsFor({ values: EMPTY_VALUES, userInfo: undefined, finish: (x) => x }),
    ],
  ];
  const times = builders.map(() => [] as number[]);
  let results = 0;
  for (let round = -1; round < ROUNDS; round++) {
    for (const [i, [, build]] of builders.entries()) {
      const t0 = performance.now();
      for (const p of pods)
        for (const r of processResource(engine, policies, p, build, existing).responses) results += r.rules.length;
      if (round >= 0) times[i]?.push(((performance.now() - t0) * 1000) / PODS);
    }
  }
  const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
  const perRound = results / ((ROUNDS + 1) * builders.length * PODS);
  console.log(
    `apply-resources: ${policies.length} pod-security policies × ${PODS} Pods, ${perRound.toFixed(0)} rule results per Pod, ${ROUNDS} alternating rounds`,
  );
  for (const [i, [label]] of builders.entries())
    console.log(`  ${label}: ${median(times[i] ?? []).toFixed(0)} µs per Pod (median of ${ROUNDS} rounds)`);
}
