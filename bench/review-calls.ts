/**
 * What the network-call mechanism (docs/adr/0012) costs per validate review, in process, through the
 * real handler (handleValidateBatch, one review per batch) and engine, over the PSS baseline
 * policies of policies/pss-baseline on a clean Pod (part of `npm run bench`; needs no cluster). Prints p50 and p99 µs per review for:
 * - A: no calls port (bylaw serve without --cluster);
 * - B: a calls port, no policy making calls (the fast path with --cluster: must equal A);
 * - C: B plus one policy with an apiCall GET entry answered from a warm cache (a 100-Pod list);
 * - D: B plus one policy with an apiCall POST entry, answered at once: two evaluation passes and
 *   the loop's promise hops (the network round trip itself is not in it).
 * The scenarios are interleaved round by round, so a loaded machine affects them alike.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  createEngine,
  type CompiledPolicy,
  type ContextSources,
  isObject,
  type JsonObject,
  type JsonValue,
  ok,
} from "../src/engine/index.js";
import { postToApiServer, usesNetworkCalls } from "../src/kube/live-calls.js";
import { CallScopes } from "../src/kube/review-calls.js";
import { cryptoRandom, nodeHasher, systemClock } from "../src/platform/node-ports.js";
import { offlineContextSources, offlineHosts } from "../src/platform/offline-context.js";
import { parseDocuments } from "../src/platform/yaml/index.js";
import type { AdmissionDeps } from "../src/server/admission/deps.js";
import { handleValidateBatch } from "../src/server/admission/index.js";
import { AdmissionPlans } from "../src/server/admission/plans.js";
import type { ReviewCallsPort } from "../src/server/admission/review-calls-loop.js";
import type { HandlerResult } from "../src/server/admission/types.js";

const ROUNDS = 40;
const PER_ROUND = 100;

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? yamlFiles(p) : p.endsWith(".yaml") ? [p] : [];
  });
}

function entryPolicy(name: string, apiCall: JsonObject): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: {
      validationFailureAction: "Enforce",
      background: false,
      rules: [
        {
          name,
          match: { any: [{ resources: { kinds: ["Pod"] } }] },
          context: [{ name: "v", apiCall: { ...apiCall, jmesPath: "length(items)" } }],
          validate: {
            message: "too many",
            deny: { conditions: { any: [{ key: "{{ v }}", operator: "GreaterThan", value: 1000 }] } },
          },
        },
      ],
    },
  };
}

const podList: JsonValue = {
  kind: "PodList",
  items: Array.from({ length: 100 }, (_, i) => ({
    metadata: { name: `p${i}`, namespace: "bench", labels: { app: "x" } },
    spec: { containers: [{ name: "c", image: "nginx" }] },
  })),
};

export async function benchReviewCalls(repoRoot: string): Promise<void> {
  const scopes = new CallScopes();
  const calls = { scopes, post: async () => podList, egress: { policy: undefined as never } };
  const context: ContextSources = {
    ...offlineContextSources({}),
    unloadable: "error",
    canLoad: () => true,
    apiCall: (req) => (req.method === "POST" ? postToApiServer(calls, req.urlPath ?? "", req) : ok(podList)),
  };
  const engine = createEngine({
    clock: systemClock,
    random: cryptoRandom,
    hasher: nodeHasher,
    context,
    hosts: offlineHosts,
  });
  const compile = (doc: JsonValue): CompiledPolicy => {
    const r = engine.compile(doc);
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
    return r.policy;
  };
  const pss = yamlFiles(join(repoRoot, "policies", "pss-baseline")).flatMap((f) =>
    parseDocuments(readFileSync(f, "utf8"), f).flatMap((d) =>
      isObject(d.value) && (d.value["kind"] === "ClusterPolicy" || d.value["kind"] === "Policy")
        ? [compile(d.value)]
        : [],
    ),
  );
  const get = compile(entryPolicy("get-from-cache", { urlPath: "/api/v1/namespaces/bench/pods" }));
  const post = compile(
    entryPolicy("post-once", {
      urlPath: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      method: "POST",
      data: [{ key: "kind", value: "SubjectAccessReview" }],
    }),
  );
  const port: ReviewCallsPort = {
    usesCalls: (p) => usesNetworkCalls(p.document as unknown as JsonValue),
    begin: () => scopes.begin(),
  };
  const depsOf = (policies: readonly CompiledPolicy[], withPort: boolean): AdmissionDeps => {
    const snapshot = { policies, generation: 1, loadedAt: 0 };
    return {
      engine,
      policies: () => snapshot,
      cluster: { namespaceLabels: () => ({}), roles: () => ({ roles: [], clusterRoles: [] }) },
      recorder: { admission: () => undefined, policyResults: () => undefined },
      now: () => performance.now() / 1000,
      deadlineSeconds: 10,
      plans: new AdmissionPlans(),
      ...(withPort ? { calls: port } : {}),
    };
  };
  const body = {
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "u",
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      operation: "CREATE",
      userInfo: { username: "alice", groups: ["system:authenticated"] },
      name: "web",
      namespace: "bench",
      object: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "web", namespace: "bench" },
        spec: {
          containers: [{ name: "c", image: "nginx:1.27", securityContext: { allowPrivilegeEscalation: false } }],
        },
      },
    },
  };
  const scenarios: [string, AdmissionDeps][] = [
    [`A  ${pss.length} PSS baseline policies, no calls port`, depsOf(pss, false)],
    [`B  ${pss.length} PSS baseline policies, calls port, none makes calls`, depsOf(pss, true)],
    ["C  B + 1 apiCall GET entry from a warm cache", depsOf([...pss, get], true)],
    ["D  B + 1 apiCall POST entry (answered at once)", depsOf([...pss, post], true)],
  ];
  const samples = scenarios.map((): number[] => []);
  const once = async (deps: AdmissionDeps): Promise<number> => {
    const t0 = performance.now();
    const [answer] = handleValidateBatch([body], deps);
    const r = (await (answer as HandlerResult | Promise<HandlerResult>)) as {
      body: { response?: { allowed?: boolean } };
    };
    const ms = performance.now() - t0;
    if (r.body.response?.allowed !== true) throw new Error(`the bench Pod was not allowed: ${JSON.stringify(r.body)}`);
    return ms;
  };
  for (const [, deps] of scenarios) for (let i = 0; i < 200; i++) await once(deps);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, [, deps]] of scenarios.entries())
      for (let i = 0; i < PER_ROUND; i++) (samples[k] as number[]).push(await once(deps));
  }
  const pct = (xs: number[], p: number): number =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
  console.log(
    `review-calls: µs per validate review (${ROUNDS * PER_ROUND} each, interleaved), Node ${process.version}, load ${(await import("node:os")).loadavg()[0]?.toFixed(1)}`,
  );
  for (const [k, [name]] of scenarios.entries()) {
    const xs = samples[k] as number[];
    console.log(
      `  ${name.padEnd(60)} p50 ${(pct(xs, 50) * 1000).toFixed(1).padStart(7)}  p99 ${(pct(xs, 99) * 1000).toFixed(1).padStart(7)}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchReviewCalls(process.cwd());
