/**
 * The cluster bench's PSS policy set and the Pod it creates: the 18 Pod Security Standards
 * ClusterPolicies of the Kyverno policy library (baseline and restricted), switched to Enforce and
 * written as files for `kubectl apply -f DIR`. The corpus sets are in corpus-policies.ts.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { docsOf } from "./corpus-policies.js";

type Doc = {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown };
  spec?: Record<string, unknown> & { rules?: { validate?: Record<string, unknown> }[] };
};

const isClusterPolicy = (d: Doc): boolean =>
  d.apiVersion === "kyverno.io/v1" && d.kind === "ClusterPolicy" && typeof d.metadata?.name === "string";

/** The 18 PSS ClusterPolicies in Enforce; returns how many were written. */
export function writePssEnforce(corpus: string, dir: string): number {
  mkdirSync(dir, { recursive: true });
  let n = 0;
  for (const set of ["baseline", "restricted"]) {
    const root = join(corpus, "pod-security", set);
    for (const name of readdirSync(root).sort()) {
      for (const doc of docsOf<Doc>(join(root, name, `${name}.yaml`)).filter(isClusterPolicy)) {
        const spec = doc.spec ?? {};
        spec["validationFailureAction"] = "Enforce";
        for (const r of spec.rules ?? []) if (r.validate) r.validate["failureAction"] = "Enforce";
        writeFileSync(join(dir, `${String(doc.metadata?.name)}.yaml`), stringify(doc));
        n++;
      }
    }
  }
  return n;
}

/** The PriorityClass the bench Pods name (the API server's Priority plugin refuses an unknown one). */
export const BENCH_PRIORITY_CLASS = {
  apiVersion: "scheduling.k8s.io/v1",
  kind: "PriorityClass",
  metadata: { name: "bench-normal" },
  value: 1000,
  globalDefault: false,
};

/**
 * The Pod every latency case creates, bound to a kwok node: one a careful team would deploy, so
 * that it passes the restricted Pod Security Standards and the corpus's Enforce rules rather than
 * being denied by the first of them: resource requests and a memory limit (no CPU limit, which a
 * corpus Enforce rule forbids), liveness and readiness probes, a priorityClassName, an emptyDir
 * for /tmp (read-only root), no service account token, every capability dropped (also by name,
 * so the corpus mutation that adds SETFCAP and SETUID unless dropped leaves it alone), and the
 * usual labels. Audit rules it still fails (image digests, registries, team labels) are reported,
 * not enforced; how many creates were allowed and denied is printed per case.
 */
export function restrictedPod(name: string, node: string): Record<string, unknown> {
  const labels = {
    app: "bench",
    "app.kubernetes.io/name": "bench",
    "app.kubernetes.io/version": "1.0.0",
    "app.kubernetes.io/part-of": "bench",
    owner: "bench",
    team: "bench",
    env: "test",
  };
  const probe = { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 10 };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels },
    spec: {
      nodeName: node,
      priorityClassName: BENCH_PRIORITY_CLASS.metadata.name,
      automountServiceAccountToken: false,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        fsGroup: 1000,
        seccompProfile: { type: "RuntimeDefault" },
      },
      containers: [
        {
          name: "app",
          image: "registry.invalid/bench/app:1.0.0",
          imagePullPolicy: "IfNotPresent",
          ports: [{ name: "http", containerPort: 8080 }],
          livenessProbe: probe,
          readinessProbe: probe,
          resources: {
            requests: { cpu: "10m", memory: "64Mi", "ephemeral-storage": "64Mi" },
            limits: { memory: "64Mi", "ephemeral-storage": "64Mi" },
          },
          securityContext: {
            allowPrivilegeEscalation: false,
            privileged: false,
            capabilities: { drop: ["ALL", "NET_RAW", "SETFCAP", "SETUID"] },
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
          },
          volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
        },
      ],
      volumes: [{ name: "tmp", emptyDir: { sizeLimit: "64Mi" } }],
    },
  };
}
