/**
 * µs per mutation of one Pod through 5 mutate ClusterPolicies in process (compiled once, each policy
 * seeing the Pod the previous one patched, as the CLI cascades them), and µs for the JSON Patch diff
 * between the Pod as sent and as mutated: what the admission webhook returns.
 */
import { pathToFileURL } from "node:url";
import {
  type CompiledPolicy,
  createJsonPatch,
  type Engine,
  type EngineRequest,
  type JsonObject,
  type Resource,
} from "../src/engine/index.js";
import { createOfflineEngine } from "../src/platform/offline-engine.js";

const WARMUP = 200;
/** Each timed loop runs at least this long. */
const MIN_NS = 1_000_000_000n;

function clusterPolicy(name: string, rule: JsonObject): JsonObject {
  return {
    apiVersion: "kyverno.io/v1",
    kind: "ClusterPolicy",
    metadata: { name },
    spec: { rules: [{ name, match: { any: [{ resources: { kinds: ["Pod"] } }] }, ...rule }] },
  };
}

const POLICIES: JsonObject[] = [
  clusterPolicy("add-team-label", {
    mutate: { patchStrategicMerge: { metadata: { labels: { "+(team)": "bravo" } } } },
  }),
  clusterPolicy("always-pull-images", {
    mutate: { patchStrategicMerge: { spec: { containers: [{ "(name)": "*", imagePullPolicy: "Always" }] } } },
  }),
  clusterPolicy("inject-container-name", {
    mutate: {
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
  }),
  clusterPolicy("owner-and-toleration", {
    mutate: {
      patchesJson6902: [
        "- op: add",
        "  path: /metadata/annotations/example.com~1owner",
        "  value: platform-team",
        "- op: add",
        "  path: /spec/tolerations/-",
        "  value: {key: dedicated, operator: Equal, value: batch, effect: NoSchedule}",
      ].join("\n"),
    },
  }),
  clusterPolicy("grace-period", {
    context: [
      {
        name: "grace",
        variable: { jmesPath: 'request.object.metadata.annotations."example.com/grace-seconds"', default: "20" },
      },
    ],
    preconditions: {
      all: [{ key: "{{ request.object.metadata.labels.tier }}", operator: "Equals", value: "backend" }],
    },
    mutate: { patchStrategicMerge: { spec: { terminationGracePeriodSeconds: "{{ add(to_number(grace), `10`) }}" } } },
  }),
];

function container(name: string, image: string, port: number): JsonObject {
  return {
    name,
    image,
    imagePullPolicy: "IfNotPresent",
    ports: [{ containerPort: port, protocol: "TCP" }],
    env: [
      { name: "LOG_LEVEL", value: "info" },
      { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ],
    resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
    volumeMounts: [
      { name: "config", mountPath: "/etc/app" },
      { name: "cache", mountPath: "/var/cache/app" },
    ],
  };
}

function pod(): Resource {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "checkout-7d9f8b6c5-x2k4p",
      namespace: "shop",
      labels: { app: "checkout", tier: "backend", "app.kubernetes.io/version": "2.4.1" },
      annotations: { "example.com/grace-seconds": "30", "prometheus.io/scrape": "true", "prometheus.io/port": "9090" },
    },
    spec: {
      initContainers: [
        {
          name: "migrate",
          image: "registry.example.com/shop/migrate:2.4.1",
          command: ["/bin/migrate", "up"],
          env: [{ name: "DB_HOST", value: "db.shop" }],
        },
        {
          name: "wait-for-db",
          image: "busybox:1.36",
          command: ["sh", "-c", "until nc -z db.shop 5432; do sleep 1; done"],
        },
      ],
      containers: [
        container("app", "registry.example.com/shop/checkout:2.4.1", 8080),
        container("sidecar-proxy", "envoyproxy/envoy:v1.29.1", 15001),
        container("metrics", "registry.example.com/shop/exporter:0.9.0", 9090),
      ],
      volumes: [
        { name: "config", configMap: { name: "checkout-config" } },
        { name: "cache", emptyDir: { sizeLimit: "1Gi" } },
        {
          name: "token",
          projected: { sources: [{ serviceAccountToken: { path: "token", expirationSeconds: 3600 } }] },
        },
      ],
      tolerations: [
        { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      ],
      serviceAccountName: "checkout",
      restartPolicy: "Always",
    },
  };
}

function request(resource: Resource): EngineRequest {
  return { resource, operation: "CREATE", namespaceLabels: {} };
}

function compileAll(engine: Engine): CompiledPolicy[] {
  return POLICIES.map((doc) => {
    const outcome = engine.compile(doc);
    if (!outcome.ok)
      throw new Error(
        `mutate-pod: policy ${JSON.stringify(doc["metadata"])} does not compile: ${JSON.stringify(outcome.problems)}`,
      );
    return outcome.policy;
  });
}

/** One cascade; `times[i]` accumulates policy i's nanoseconds. */
function mutateOnce(
  engine: Engine,
  policies: readonly CompiledPolicy[],
  original: Resource,
  times: bigint[],
): Resource {
  let current = original;
  let t = process.hrtime.bigint();
  for (let i = 0; i < policies.length; i++) {
    current = engine.mutate(policies[i] as CompiledPolicy, request(current)).patchedResource ?? current;
    const now = process.hrtime.bigint();
    times[i] = (times[i] ?? 0n) + (now - t);
    t = now;
  }
  return current;
}

/** Throws unless every policy passed on its rule and changed the Pod, and the input was left alone. */
function assertEveryPolicyMutates(engine: Engine, policies: readonly CompiledPolicy[], original: Resource): void {
  const before = JSON.stringify(original);
  let current = original;
  for (const policy of policies) {
    const response = engine.mutate(policy, request(current));
    const statuses = response.rules.map((r) => `${r.rule}: ${r.status} ${r.message}`);
    if (response.rules.length === 0 || response.rules.some((r) => r.status !== "pass")) {
      throw new Error(
        `mutate-pod: policy ${policy.name} did not pass on the Pod (${statuses.join("; ") || "no rule matched"})`,
      );
    }
    const next = response.patchedResource ?? current;
    if (JSON.stringify(next) === JSON.stringify(current))
      throw new Error(`mutate-pod: policy ${policy.name} passed but left the Pod unchanged`);
    current = next;
  }
  if (JSON.stringify(original) !== before)
    throw new Error("mutate-pod: mutation changed the input Pod in place; the timed loop would measure no-ops");
  const spec = current["spec"] as JsonObject;
  if (spec["terminationGracePeriodSeconds"] !== 40)
    throw new Error(
      `mutate-pod: terminationGracePeriodSeconds is ${JSON.stringify(spec["terminationGracePeriodSeconds"])}, expected 40`,
    );
}

/** Runs `body` in batches until at least MIN_NS has passed; returns iterations and nanoseconds. */
function timeAtLeast(body: () => void): { iterations: number; ns: bigint } {
  let iterations = 0;
  let batch = 100;
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  while (elapsed < MIN_NS) {
    for (let i = 0; i < batch; i++) body();
    iterations += batch;
    elapsed = process.hrtime.bigint() - start;
    batch = Math.min(batch * 2, 5000);
  }
  return { iterations, ns: elapsed };
}

const micros = (ns: bigint, n: number): string => (Number(ns) / 1000 / n).toFixed(1);

export function benchMutatePod(): void {
  const engine = createOfflineEngine();
  const policies = compileAll(engine);
  const original = pod();
  assertEveryPolicyMutates(engine, policies, original);

  const scratch: bigint[] = [];
  for (let i = 0; i < WARMUP; i++) createJsonPatch(original, mutateOnce(engine, policies, original, scratch));

  const times: bigint[] = policies.map(() => 0n);
  let final: Resource = original;
  const cascade = timeAtLeast(() => {
    final = mutateOnce(engine, policies, original, times);
  });
  const perPolicy = policies.map((p, i) => `${p.name} ${micros(times[i] ?? 0n, cascade.iterations)}`).join(", ");

  let ops = 0;
  const diff = timeAtLeast(() => {
    ops = createJsonPatch(original, final).length;
  });

  console.log(
    `mutate-pod: 1 Pod (3 containers, 2 init) through ${policies.length} mutate policies, cascaded: ${micros(cascade.ns, cascade.iterations)} µs per Pod, ${micros(cascade.ns, cascade.iterations * policies.length)} µs per policy (${cascade.iterations} iterations)`,
  );
  console.log(`mutate-pod: µs per policy: ${perPolicy}`);
  console.log(
    `mutate-pod: webhook JSON patch (createJsonPatch original → mutated): ${micros(diff.ns, diff.iterations)} µs, ${ops} ops (${diff.iterations} iterations)`,
  );
  const mem = process.memoryUsage();
  console.log(
    `mutate-pod: heap used ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB, rss ${(mem.rss / 2 ** 20).toFixed(0)} MiB`,
  );
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) benchMutatePod();
