/**
 * What the JSON limits (src/server/http/json-limits.ts) cost: the check on an ordinary review's text
 * against JSON.parse of the same text (paired, CPU time), and the check alone on bodies at the body
 * cap that it refuses, against what parsing them would have cost. Run by `npm run bench:json`.
 * Figures, never verdicts.
 */
import { fileURLToPath } from "node:url";
import { DEFAULT_JSON_LIMITS, jsonOverLimits } from "../src/server/http/json-limits.js";
import { runArm, runPaired, timeArm, type PairedCase } from "./paired.js";
const MIB = 1024 * 1024;

/** An ordinary review: a Deployment's Pod (two containers, probes, volumes) as the API server sends it on CREATE. */
function ordinaryReview(): string {
  const container = (name: string): object => ({
    name,
    image: `registry.example/shop/${name}:1.4.2`,
    ports: [{ containerPort: 8080, protocol: "TCP" }],
    env: [
      { name: "MODE", value: "production" },
      { name: "POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ],
    resources: { limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } },
    readinessProbe: { httpGet: { path: "/ready", port: 8080 }, periodSeconds: 5 },
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
    volumeMounts: [{ name: "config", mountPath: "/etc/app" }],
  });
  const object = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "shop-7d9c-x2",
      namespace: "shop",
      labels: { app: "shop", team: "payments", "pod-template-hash": "7d9c" },
      annotations: { "kubectl.kubernetes.io/restartedAt": "2026-11-29T07:00:00Z" },
      ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "shop-7d9c", uid: "u", controller: true }],
    },
    spec: {
      containers: [container("app"), container("sidecar")],
      volumes: [{ name: "config", configMap: { name: "shop-config" } }],
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      serviceAccountName: "shop",
    },
  };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "0f7c",
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      namespace: "shop",
      operation: "CREATE",
      userInfo: {
        username: "system:serviceaccount:kube-system:replicaset-controller",
        groups: ["system:serviceaccounts"],
      },
      object,
      oldObject: null,
      dryRun: false,
    },
  });
}

const ordinary: PairedCase = {
  label: `json limits: an ordinary ${(ordinaryReview().length / 1024).toFixed(1)} KiB review`,
  arms: ["JSON.parse", "limits check + JSON.parse"],
  setup: () => {
    const text = ordinaryReview();
    return [() => JSON.parse(text) as unknown, () => (jsonOverLimits(text) ?? JSON.parse(text)) as unknown];
  },
};

/** Bodies of about 7 MiB (the body cap) the limits refuse: µs to refuse, and ms JSON.parse takes on them. */
function worstCases(): void {
  const n = 7 * MIB;
  const cases: [string, string][] = [
    ["7 MiB of [{},{},…]", `[${"{},".repeat(n / 3 - 1)}{}]`],
    ["7 MiB of [[[…]]]", `${"[".repeat(n / 2)}${"]".repeat(n / 2)}`],
    [
      "a 60,000-container Pod",
      JSON.stringify({
        spec: { containers: Array.from({ length: 60_000 }, (_, i) => ({ name: `c${i}`, image: "nginx" })) },
      }),
    ],
    ["7 MiB of one long string (passes)", JSON.stringify("x".repeat(n - 2))],
  ];
  for (const [label, text] of cases) {
    const checkUs = timeArm(() => jsonOverLimits(text, DEFAULT_JSON_LIMITS)) / 1000;
    const parseStart = performance.now();
    JSON.parse(text);
    const parseMs = performance.now() - parseStart;
    const verdict = jsonOverLimits(text) === undefined ? "within the limits" : "refused";
    console.log(
      `json limits: ${label}: check ${(checkUs / 1000).toFixed(2)} ms (${verdict}); JSON.parse ${parseMs.toFixed(0)} ms`,
    );
  }
}

const CASES = { ordinary };
const [name, arm] = process.argv.slice(2);
if (name !== undefined && arm !== undefined) {
  runArm(CASES, name, arm);
} else {
  console.log(`bench:json: node ${process.version}, ${new Date().toISOString()}`);
  runPaired(fileURLToPath(import.meta.url), CASES);
  worstCases();
}
