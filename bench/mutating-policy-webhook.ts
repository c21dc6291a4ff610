/**
 * A Pod through 5 MutatingPolicies in the mutating webhook's handler (handleMutate, in process, the
 * real engine), beside the same 5 mutations written as classic ClusterPolicies, and the two mixed
 * (part of `npm run bench`; needs no cluster). Before timing, each set's answer is applied to the
 * Pod and the three results must be the same object (a bench of different work would mean
 * nothing). Prints p50 and p99 µs per review and the JSON Patch size; the sets are interleaved
 * round by round so a loaded machine affects them alike. Figures, never verdicts.
 */
import { Buffer } from "node:buffer";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import {
  applyJsonPatch,
  createEngine,
  type CompiledPolicy,
  type Engine,
  jsonEqual,
  type JsonObject,
  type JsonPatchOp,
  type JsonValue,
} from "../src/engine/index.js";
import { servePorts } from "../src/server/serve-ports.js";
import { compileCelPolicy } from "../src/server/policy-source/cel-policy-compile.js";
import type { AdmissionDeps } from "../src/server/admission/deps.js";
import { handleMutate } from "../src/server/admission/index.js";
import { AdmissionPlans } from "../src/server/admission/plans.js";

const ROUNDS = 30;
const PER_ROUND = 100;

function clusterPolicy(name: string, mutate: JsonObject): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: { rules: [{ name, match: { any: [{ resources: { kinds: ["Pod"] } }] }, mutate }] },
  };
}

function mutatingPolicy(name: string, mutation: JsonObject): JsonObject {
  return {
    apiVersion: "policies.kyverno.io/v1",
    kind: "MutatingPolicy",
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [
          { apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"] },
        ],
      },
      mutations: [mutation],
    },
  };
}

const apply = (expression: string): JsonObject => ({
  patchType: "ApplyConfiguration",
  applyConfiguration: { expression },
});
const jsonPatch = (expression: string): JsonObject => ({ patchType: "JSONPatch", jsonPatch: { expression } });

/** The 5 mutations, each as a ClusterPolicy and as a MutatingPolicy. */
const MUTATIONS: readonly [string, JsonObject, JsonObject][] = [
  [
    "m1-team-label",
    { patchStrategicMerge: { metadata: { labels: { team: "bravo" } } } },
    apply('Object{metadata: Object.metadata{labels: {"team": "bravo"}}}'),
  ],
  [
    "m2-owner-annotation",
    { patchStrategicMerge: { metadata: { annotations: { "example.com/owner": "platform-team" } } } },
    jsonPatch(
      '[JSONPatch{op: "add", path: "/metadata/annotations", value: {}}, JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/owner"), value: "platform-team"}]',
    ),
  ],
  [
    "m3-always-pull",
    { patchStrategicMerge: { spec: { containers: [{ "(name)": "*", imagePullPolicy: "Always" }] } } },
    apply(
      'Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, imagePullPolicy: "Always"})}}',
    ),
  ],
  [
    "m4-container-name-env",
    {
      foreach: [
        {
          list: "request.object.spec.containers",
          patchStrategicMerge: {
            spec: {
              containers: [
                { name: "{{ element.name }}", env: [{ name: "CONTAINER_NAME", value: "{{ element.name }}" }] },
              ],
            },
          },
        },
      ],
    },
    apply(
      'Object{spec: Object.spec{containers: object.spec.containers.map(c, Object.spec.containers{name: c.name, env: [Object.spec.containers.env{name: "CONTAINER_NAME", value: c.name}]})}}',
    ),
  ],
  [
    "m5-toleration",
    {
      patchStrategicMerge: {
        spec: { tolerations: [{ key: "dedicated", operator: "Equal", value: "platform", effect: "NoSchedule" }] },
      },
    },
    // A JSON patch: an ApplyConfiguration may not set the atomic tolerations list (Kyverno refuses it).
    jsonPatch(
      '[JSONPatch{op: "add", path: "/spec/tolerations", value: [{"key": "dedicated", "operator": "Equal", "value": "platform", "effect": "NoSchedule"}]}]',
    ),
  ],
];

const POD: JsonObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "bench", labels: { app: "web" } },
  spec: {
    containers: [
      { name: "app", image: "nginx:1.27" },
      { name: "sidecar", image: "envoyproxy/envoy:v1.31" },
    ],
  },
};

const BODY: JsonObject = {
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
    object: POD,
  },
};

function compileAll(engine: Engine, docs: readonly JsonObject[], cel: boolean): CompiledPolicy[] {
  return docs.map((doc) => {
    if (!cel) {
      const r = engine.compile(doc);
      if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
      return r.policy;
    }
    const c = compileCelPolicy(doc, engine);
    if (c.policy === undefined) throw new Error(c.problems.map((p) => p.message).join("; "));
    return c.policy;
  });
}

function depsOf(engine: Engine, policies: readonly CompiledPolicy[]): AdmissionDeps {
  const snapshot = { policies, generation: 1, loadedAt: 0 };
  return {
    engine,
    policies: () => snapshot,
    cluster: { namespaceLabels: () => ({}), roles: () => ({ roles: [], clusterRoles: [] }) },
    recorder: { admission: () => undefined, policyResults: () => undefined },
    now: () => performance.now() / 1000,
    deadlineSeconds: 10,
    plans: new AdmissionPlans(),
  };
}

/** The review's patch, or a thrown error naming why the bench would measure nothing useful. */
function patchOf(deps: AdmissionDeps): JsonPatchOp[] {
  const r = handleMutate(BODY, deps);
  if (r.status !== 200) throw new Error(`the review answered ${r.status}`);
  const response = r.body.response;
  if (response?.allowed !== true) throw new Error(`the bench Pod was not admitted: ${JSON.stringify(response)}`);
  return JSON.parse(Buffer.from(response.patch ?? "", "base64").toString("utf8")) as JsonPatchOp[];
}

export function benchMutatingPolicyWebhook(): void {
  // The engine as `bylaw serve` builds it: a MutatingPolicy's ApplyConfiguration typed with the built-in kinds.
  const engine = createEngine(servePorts());
  const classic = compileAll(
    engine,
    MUTATIONS.map(([name, mutate]) => clusterPolicy(name, mutate)),
    false,
  );
  const cel = compileAll(
    engine,
    MUTATIONS.map(([name, , mutation]) => mutatingPolicy(name, mutation)),
    true,
  );
  const mixed = [...classic.slice(0, 2), ...cel.slice(2)];
  const scenarios: [string, AdmissionDeps][] = [
    ["5 ClusterPolicies (patchStrategicMerge, foreach)", depsOf(engine, classic)],
    ["5 MutatingPolicies (ApplyConfiguration, JSONPatch)", depsOf(engine, cel)],
    ["2 ClusterPolicies + 3 MutatingPolicies", depsOf(engine, mixed)],
  ];
  const results = scenarios.map(([name, deps]) => {
    const patch = patchOf(deps);
    const applied = applyJsonPatch(POD, patch);
    if (!applied.ok) throw new Error(`${name}: its patch does not apply: ${applied.error.message}`);
    return { patch, pod: applied.value };
  });
  const first = results[0]?.pod as JsonValue;
  for (const [i, r] of results.entries())
    if (!jsonEqual(r.pod, first))
      throw new Error(
        `${scenarios[i]?.[0]} mutates the Pod differently:\n${JSON.stringify(r.pod)}\nvs\n${JSON.stringify(first)}`,
      );
  const samples = scenarios.map((): number[] => []);
  for (const [, deps] of scenarios) for (let i = 0; i < 300; i++) handleMutate(BODY, deps);
  for (let round = 0; round < ROUNDS; round++)
    for (const [k, [, deps]] of scenarios.entries())
      for (let i = 0; i < PER_ROUND; i++) {
        const t0 = performance.now();
        handleMutate(BODY, deps);
        (samples[k] as number[]).push(performance.now() - t0);
      }
  const pct = (xs: number[], p: number): number =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
  console.log(
    `mutating-policy-webhook: µs per mutate review of a 2-container Pod (${ROUNDS * PER_ROUND} each, interleaved; same mutated Pod), Node ${process.version}, load ${loadavg()[0]?.toFixed(1)}`,
  );
  for (const [k, [name]] of scenarios.entries()) {
    const xs = samples[k] as number[];
    const ops = results[k]?.patch.length ?? 0;
    console.log(
      `  ${name.padEnd(52)} p50 ${(pct(xs, 50) * 1000).toFixed(1).padStart(7)}  p99 ${(pct(xs, 99) * 1000).toFixed(1).padStart(7)}  patch ${ops} ops`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) benchMutatingPolicyWebhook();
