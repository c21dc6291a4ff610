/**
 * `node dist/bench/candidate-index.js`: the candidate index's effect on the validate webhook,
 * in-process, with the corpus's ClusterPolicies (the cluster bench's set, bench/cluster/corpus-policies.ts)
 * and a mix of reviews of several kinds and operations. Prints, without the index (before) and with
 * it (after): policies and rules reached per review, rule results, the share of reviews answered
 * without evaluating any policy, and reviews/s against an in-process bare echo (parse the review,
 * answer allowed). Figures, never verdicts. BENCH_REVIEWS (default 2000) reviews per run.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { createEngine, kyvernoCompiledRules, type JsonObject } from "../src/engine/index.js";
import { fakePorts } from "../test/support/fake-ports.js";
import type { AdmissionDeps } from "../src/server/admission/deps.js";
import { AdmissionPlans } from "../src/server/admission/plans.js";
import { handleValidate } from "../src/server/admission/validate-handler.js";
import { fakeDeps, reviewOf } from "../test/support/fake-admission-deps.js";
import { writeCorpusPolicies } from "./cluster/corpus-policies.js";
import { restrictedPod } from "./cluster/policies.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const REVIEWS = Number(process.env["BENCH_REVIEWS"] ?? 2000);

const meta = (name: string): JsonObject => ({ name, namespace: "shop", labels: { app: name } });
/** The review mix: what a cluster's API server sends a webhook registered for every kind. */
function reviewMix(): { label: string; body: JsonObject }[] {
  const pod = restrictedPod("bench-pod", "node-0") as JsonObject;
  const deployment: JsonObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta("web"),
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: pod["spec"] ?? {} },
    },
  };
  const configMap: JsonObject = { apiVersion: "v1", kind: "ConfigMap", metadata: meta("cfg"), data: { a: "b" } };
  const secret: JsonObject = { apiVersion: "v1", kind: "Secret", metadata: meta("s"), type: "Opaque" };
  const service: JsonObject = {
    apiVersion: "v1",
    kind: "Service",
    metadata: meta("svc"),
    spec: { type: "ClusterIP", ports: [{ port: 80 }] },
  };
  const lease: JsonObject = {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: meta("l"),
    spec: { holderIdentity: "x" },
  };
  const update = (o: JsonObject): JsonObject => reviewOf(o, { operation: "UPDATE", oldObject: o });
  return [
    { label: "Pod CREATE", body: reviewOf(pod) },
    { label: "Pod UPDATE", body: update(pod) },
    { label: "Deployment CREATE", body: reviewOf(deployment) },
    { label: "ConfigMap CREATE", body: reviewOf(configMap) },
    { label: "Secret UPDATE", body: update(secret) },
    { label: "Service CREATE", body: reviewOf(service) },
    { label: "Lease UPDATE", body: update(lease) },
  ];
}

interface Figures {
  readonly perSecond: number;
  readonly policiesReached: number;
  readonly rulesReached: number;
  readonly ruleResults: number;
  readonly unevaluated: number;
}

function run(policies: readonly JsonObject[], indexed: boolean, mix: ReturnType<typeof reviewMix>): Figures {
  const fake = fakeDeps({ policies, realClock: true, deadlineSeconds: 60 });
  const deps: AdmissionDeps = { ...fake.deps, plans: new AdmissionPlans(), indexCandidates: indexed };
  const plan = deps.plans?.validatePlan(deps.policies(), undefined);
  if (plan === undefined) throw new Error("no plan");
  // What the index reaches per review kind (a mask per class), or every policy without it.
  let policiesReached = 0;
  let rulesReached = 0;
  let unevaluated = 0;
  for (const { body } of mix) {
    let reached = 0;
    for (const index of [plan.indexes.enforceClass, plan.indexes.auditWarn, plan.indexes.auditOnly]) {
      const prepared = fake.engine.prepare({
        resource: (body["request"] as JsonObject)["object"] as JsonObject,
        operation: (body["request"] as JsonObject)["operation"] as "CREATE",
        namespaceLabels: {},
      });
      const mask = indexed ? index.candidates(prepared) : new Uint8Array(index.policies.length).fill(1);
      index.policies.forEach((p, i) => {
        if (mask[i] === 1) {
          reached++;
          rulesReached += kyvernoCompiledRules(p).length;
        }
      });
    }
    policiesReached += reached;
    if (reached === 0) unevaluated++;
  }
  const bodies = mix.map((m) => JSON.stringify(m.body));
  for (let i = 0; i < 200; i++) handleValidate(JSON.parse(bodies[i % bodies.length] as string), deps);
  fake.results.length = 0;
  const t0 = performance.now();
  for (let i = 0; i < REVIEWS; i++) handleValidate(JSON.parse(bodies[i % bodies.length] as string), deps);
  const seconds = (performance.now() - t0) / 1000;
  return {
    perSecond: REVIEWS / seconds,
    policiesReached: policiesReached / mix.length,
    rulesReached: rulesReached / mix.length,
    ruleResults: fake.results.length / REVIEWS,
    unevaluated: unevaluated / mix.length,
  };
}

/** The in-process floor: parse the review and write an allowed answer. */
function bareEcho(mix: ReturnType<typeof reviewMix>): number {
  const bodies = mix.map((m) => JSON.stringify(m.body));
  const t0 = performance.now();
  let n = 0;
  for (let i = 0; i < REVIEWS * 20; i++) {
    const review = JSON.parse(bodies[i % bodies.length] as string) as { request: { uid: string } };
    n += JSON.stringify({
      apiVersion: "admission.k8s.io/v1",
      kind: "AdmissionReview",
      response: { uid: review.request.uid, allowed: true },
    }).length;
  }
  if (n === 0) throw new Error("nothing written");
  return (REVIEWS * 20) / ((performance.now() - t0) / 1000);
}

function main(): void {
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  if (!existsSync(join(corpus, "pod-security"))) {
    console.log(`candidate-index: corpus not found at ${corpus}; skipped`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "bylaw-bench-index-"));
  writeCorpusPolicies(corpus, dir, "cluster-policies");
  const policies = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => parse(readFileSync(join(dir, f), "utf8")) as JsonObject);
  const engine = createEngine(fakePorts());
  const compiles = policies.filter((p) => engine.compile(p).ok);
  if (compiles.length < policies.length)
    console.log(`  ${policies.length - compiles.length} of the set do not compile offline; left out`);
  const mix = reviewMix();
  console.log(
    `candidate-index: node ${process.version}; ${policies.length} corpus ClusterPolicies; ${REVIEWS} reviews per run, a mix of ${mix.map((m) => m.label).join(", ")}`,
  );
  const floor = bareEcho(mix);
  console.log(`  bare echo (in-process: parse the review, answer allowed): ${floor.toFixed(0)} reviews/s`);
  for (const [label, indexed] of [
    ["before (no index)", false],
    ["after (candidate index)", true],
    ["before (no index), again", false],
    ["after (candidate index), again", true],
  ] as const) {
    const f = run(compiles, indexed, mix);
    console.log(
      `  ${label}: ${f.perSecond.toFixed(0)} reviews/s (1/${(floor / f.perSecond).toFixed(1)} of the echo); ` +
        `per review ${f.policiesReached.toFixed(1)} policies / ${f.rulesReached.toFixed(1)} rules reached, ` +
        `${f.ruleResults.toFixed(1)} rule results; answered without evaluation: ${(100 * f.unevaluated).toFixed(0)}% of reviews`,
    );
  }
}

main();
