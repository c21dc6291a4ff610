/**
 * Part 3: what an `apiCall` context entry costs a review with its cache warm. Two Enforce
 * ClusterPolicies that differ only in the entry: one counts the namespace's Pods with
 * `apiCall.urlPath` (answered from Bylaw's Pod cache), its twin compares a constant. Pod CREATE
 * AdmissionReviews go straight to Bylaw's /validate/fail, one at a time, alternating between the
 * namespace each policy matches, so a drift in the machine's speed touches both sides.
 */
import { request } from "node:https";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually, type Cluster } from "../../test/cluster/cluster-harness.js";
import { createReview } from "../../test/cluster/serve-process.js";
import type { ApiClient } from "./api-client.js";
import { pool } from "../../test/support/pool.js";
import { applyPolicies, bylawPorts, createNamespace, loadNote, waitForPodWebhook } from "./cluster-steps.js";
import { percentile } from "./histogram.js";
import { restrictedPod } from "./policies.js";

export const WITH_NS = "cost-apicall";
export const COST_PODS = 20;
const PLAIN_NS = "cost-plain";

const policy = (name: string, ns: string, context: string, key: string): string => `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: { name: ${name} }
spec:
  validationFailureAction: Enforce
  rules:
    - name: count
      match:
        any:
          - resources: { kinds: [Pod], operations: [CREATE], namespaces: [${ns}] }
${context}      validate:
        message: "too many Pods"
        deny:
          conditions:
            any:
              - { key: "${key}", operator: GreaterThanOrEquals, value: 1000000 }
`;

const CONTEXT = `      context:
        - name: podCount
          apiCall:
            urlPath: "/api/v1/namespaces/{{request.namespace}}/pods"
            jmesPath: "items | length(@)"
`;

/**
 * What a user adds for an apiCall that reads Pods: deploy/ grants Bylaw no Pod access of its own;
 * its ClusterRole aggregates ClusterRoles labelled as Kyverno's do (deploy/base/rbac).
 */
export const READ_PODS_ROLE = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: bench-read-pods
  labels: { rbac.kyverno.io/aggregate-to-admission-controller: "true" }
rules:
  - { apiGroups: [""], resources: [pods], verbs: [get, list, watch] }
`;

/** Writes the two policies; the apiCall one keeps Bylaw's Pod cache (all namespaces) running. */
export function writeCostPolicies(dir: string): void {
  writeFileSync(join(dir, "read-pods-role.yaml"), READ_PODS_ROLE);
  writeFileSync(join(dir, "with-apicall.yaml"), policy("bench-with-apicall", WITH_NS, CONTEXT, "{{podCount}}"));
  writeFileSync(join(dir, "without-apicall.yaml"), policy("bench-without-apicall", PLAIN_NS, "", "0"));
}

function post(port: number, body: string): Promise<{ ms: number; allowed: boolean; text: string }> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/validate/fail",
        method: "POST",
        rejectUnauthorized: false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const allowed = (JSON.parse(text) as { response?: { allowed?: boolean } }).response?.allowed === true;
          done({ ms: performance.now() - t0, allowed, text });
        });
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}

export interface CostRow {
  readonly reviews: number;
  readonly podsInNamespace: number;
  readonly withP50: number;
  readonly withoutP50: number;
  readonly withP99: number;
  readonly withoutP99: number;
  readonly load: string;
}

/** Loads the two policies (and the Pod grant) and waits until the apiCall entry answers; returns Bylaw's port. */
export async function loadCostPolicies(
  cluster: Cluster,
  api: ApiClient,
  dir: string,
  nodes: readonly string[],
): Promise<number> {
  await createNamespace(api, WITH_NS);
  await createNamespace(api, PLAIN_NS);
  await pool(COST_PODS, 4, (i) =>
    api.call(
      "POST",
      `/api/v1/namespaces/${WITH_NS}/pods`,
      restrictedPod(`c-${i}`, nodes[i % nodes.length] ?? "kwok-node-0"),
    ),
  );
  writeCostPolicies(dir);
  await applyPolicies(cluster, dir);
  await waitForPodWebhook(cluster);
  const { port } = bylawPorts(cluster);
  // Warm: the Pod cache has synced once a review with the entry is allowed.
  let last = "";
  await eventually("the apiCall entry to answer from a synced cache", 60_000, async () => {
    const r = await post(port, reviewBody(WITH_NS));
    last = r.text;
    return r.allowed ? true : undefined;
  }).catch((e: unknown) => {
    throw new Error(`${String(e)}; the last answer: ${last.slice(0, 500)}`);
  });
  return port;
}

const reviewBody = (ns: string): string =>
  JSON.stringify(
    createReview({
      kind: "Pod",
      metadata: { name: "x", namespace: ns },
      spec: { containers: [{ name: "c", image: "registry.invalid/app:1" }] },
    }),
  );

export async function benchApiCallCost(port: number, reviews: number, podsInNamespace: number): Promise<CostRow> {
  const withBody = reviewBody(WITH_NS);
  const withoutBody = reviewBody(PLAIN_NS);
  for (let i = 0; i < 50; i++) {
    await post(port, withBody);
    await post(port, withoutBody);
  }
  const load = loadNote();
  const withMs: number[] = [];
  const withoutMs: number[] = [];
  for (let i = 0; i < reviews; i++) {
    const a = await post(port, withBody);
    const b = await post(port, withoutBody);
    if (!a.allowed || !b.allowed)
      throw new Error(`a bench review was not allowed: ${(a.allowed ? b : a).text.slice(0, 300)}`);
    withMs.push(a.ms);
    withoutMs.push(b.ms);
  }
  return {
    reviews,
    podsInNamespace,
    withP50: percentile(withMs, 50),
    withoutP50: percentile(withoutMs, 50),
    withP99: percentile(withMs, 99),
    withoutP99: percentile(withoutMs, 99),
    load,
  };
}

export function printCost(r: CostRow): void {
  console.log(
    `\n## 3. apiCall entry cost, cache warm: ${r.reviews} Pod reviews each way, sequential, POST /validate/fail on loopback HTTPS (${r.podsInNamespace} Pods in the namespace listed)`,
  );
  console.log(`   reproduce: BENCH_PARTS=apicall BENCH_REVIEWS=${r.reviews} npm run bench:cluster (${r.load})`);
  console.log("| policy | p50 | p99 |");
  console.log("|---|---|---|");
  console.log(
    `| with apiCall (urlPath pods, jmesPath length) | ${r.withP50.toFixed(3)} ms | ${r.withP99.toFixed(3)} ms |`,
  );
  console.log(`| without (same rule, constant key) | ${r.withoutP50.toFixed(3)} ms | ${r.withoutP99.toFixed(3)} ms |`);
  console.log(`| added by the entry | ${(r.withP50 - r.withoutP50).toFixed(3)} ms p50 (goal ≤ 1 ms) | |`);
}
