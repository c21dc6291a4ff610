/**
 * `node dist/bench/scan-stages.js`: a background scan's CPU per resource, stage by stage, in-process
 * (issue 35; printed figures, not a timed test). The cluster bench (background-scan.ts) gives the
 * whole process's CPU over a real first scan; this one splits the work Bylaw does per Pod before the
 * HTTP write, on the same Pods (`BENCH_PODS`, default 10,000, one in ten privileged) and the same 19
 * pss-restricted policies: evaluation (scanResource), the report's build and write decision
 * (reconcileReport, the report new), the request body (JSON.stringify), and the scan's Event drafts
 * (scanResultEvents). Each stage runs over every Pod in turn, three rounds; the best round is printed.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import { createEngine, type CompiledPolicy, type JsonObject, type PolicyResponse } from "../src/engine/index.js";
import { fakePorts } from "../test/support/fake-ports.js";
import { backgroundPolicies, scanResource } from "../src/controllers/reports/scan.js";
import { reconcileReport } from "../src/controllers/reports/reconcile.js";
import { scanResultEvents } from "../src/controllers/events/policy-events.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PODS = Number(process.env["BENCH_PODS"] ?? 10_000);
const ROUNDS = 3;

function policies(): CompiledPolicy[] {
  const engine = createEngine(fakePorts());
  const dir = join(repoRoot, "deploy", "components", "policy-set-pss-restricted", "policies");
  const out: CompiledPolicy[] = [];
  for (const file of readdirSync(dir).filter((f) => f.startsWith("pss-")))
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), "utf8"))) {
      const compiled = engine.compile(doc.toJS() as JsonObject);
      if (!compiled.ok) throw new Error(`${file}: ${JSON.stringify(compiled)}`);
      out.push(compiled.policy);
    }
  return out;
}

/** A Pod as the API server stores the cluster bench's: uid, resourceVersion, defaults, status. */
function pod(n: number): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `p-${n}`,
      namespace: `bench-${n % 10}`,
      uid: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
      resourceVersion: String(1000 + n),
      creationTimestamp: "2026-12-06T11:00:00Z",
      labels: { app: "bench" },
    },
    spec: {
      schedulerName: "bench-none",
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      terminationGracePeriodSeconds: 30,
      serviceAccountName: "default",
      serviceAccount: "default",
      securityContext: {},
      enableServiceLinks: true,
      preemptionPolicy: "PreemptLowerPriority",
      priority: 0,
      tolerations: [
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
        { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      ],
      volumes: [
        {
          name: "kube-api-access-abcde",
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
              { configMap: { name: "kube-root-ca.crt", items: [{ key: "ca.crt", path: "ca.crt" }] } },
              {
                downwardAPI: {
                  items: [{ path: "namespace", fieldRef: { apiVersion: "v1", fieldPath: "metadata.namespace" } }],
                },
              },
            ],
          },
        },
      ],
      containers: [
        {
          name: "app",
          image: "nginx:1.27",
          imagePullPolicy: "IfNotPresent",
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          resources: {},
          volumeMounts: [
            {
              name: "kube-api-access-abcde",
              readOnly: true,
              mountPath: "/var/run/secrets/kubernetes.io/serviceaccount",
            },
          ],
          securityContext: { privileged: n % 10 === 0 },
        },
      ],
    },
    status: { phase: "Pending", qosClass: "BestEffort" },
  };
}

function round(name: string, run: () => number): { name: string; ms: number; out: number } {
  let best = Infinity;
  let out = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    out = run();
    best = Math.min(best, performance.now() - t0);
  }
  return { name, ms: best, out };
}

function main(): void {
  const engine = createEngine(fakePorts());
  const scanned = backgroundPolicies(policies());
  const pods = Array.from({ length: PODS }, (_, n) => pod(n));
  const facts = { namespaceLabels: { "kubernetes.io/metadata.name": "bench" } };
  let responses: PolicyResponse[][] = [];
  let reports: JsonObject[] = [];
  const origin = { controller: "kyverno-scan", instance: "bench", now: 0, omit: new Set<string>() };
  const rows = [
    round("evaluation (scanResource)", () => {
      responses = pods.map((resource) => scanResource({ engine, policies: scanned, resource, ...facts }));
      return responses.reduce((n, r) => n + r.reduce((m, x) => m + x.rules.length, 0), 0);
    }),
    round("report build and decision (reconcileReport)", () => {
      reports = pods.map((resource, i) => {
        const action = reconcileReport({ resource, responses: responses[i] ?? [], existing: undefined, nowMillis: 0 });
        return action.action === "create" ? action.report : {};
      });
      return reports.length;
    }),
    round("request body (JSON.stringify)", () => reports.reduce((n, r) => n + JSON.stringify(r).length, 0)),
    round("Event drafts (scanResultEvents)", () =>
      pods.reduce(
        (n, resource, i) => n + scanResultEvents({ resource, responses: responses[i] ?? [], origin }).length,
        0,
      ),
    ),
    round("all four, Pod by Pod (as a scan interleaves them)", () => {
      let n = 0;
      pods.forEach((resource) => {
        const r = scanResource({ engine, policies: scanned, resource, ...facts });
        const action = reconcileReport({ resource, responses: r, existing: undefined, nowMillis: 0 });
        if (action.action === "create") n += JSON.stringify(action.report).length;
        n += scanResultEvents({ resource, responses: r, origin }).length;
      });
      return n;
    }),
  ];
  console.log(
    `scan stages: ${PODS} Pods x ${scanned.length} pss-restricted policies, in-process, node ${process.version}`,
  );
  console.log("| stage | ms (best of 3) | µs per Pod | output |");
  console.log("|---|---|---|---|");
  for (const r of rows)
    console.log(`| ${r.name} | ${r.ms.toFixed(0)} | ${((r.ms * 1000) / PODS).toFixed(1)} | ${r.out} |`);
  const total = rows.slice(0, 4).reduce((n, r) => n + r.ms, 0);
  console.log(`| the four stages' sum | ${total.toFixed(0)} | ${((total * 1000) / PODS).toFixed(1)} | |`);
}

main();
