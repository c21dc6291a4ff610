/**
 * The policy sets of the cluster bench, written as files for `kubectl apply -f DIR`:
 * - the 18 Pod Security Standards ClusterPolicies of the Kyverno policy library (baseline and
 *   restricted), switched to Enforce;
 * - every kyverno.io/v1 ClusterPolicy of the library's suites (MANIFEST.tsv), as written; the
 *   bench counts how many the cluster then shows Ready (the ones Bylaw loads).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";

type Doc = { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown }; spec?: Record<string, unknown> & { rules?: { validate?: Record<string, unknown> }[] } };

function docsOf(file: string): Doc[] {
  try {
    return parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJSON() as Doc).filter((d) => d !== null && typeof d === "object");
  } catch {
    return [];
  }
}

const isClusterPolicy = (d: Doc): boolean => d.apiVersion === "kyverno.io/v1" && d.kind === "ClusterPolicy" && typeof d.metadata?.name === "string";

/** The 18 PSS ClusterPolicies in Enforce; returns how many were written. */
export function writePssEnforce(corpus: string, dir: string): number {
  mkdirSync(dir, { recursive: true });
  let n = 0;
  for (const set of ["baseline", "restricted"]) {
    const root = join(corpus, "pod-security", set);
    for (const name of readdirSync(root).sort()) {
      for (const doc of docsOf(join(root, name, `${name}.yaml`)).filter(isClusterPolicy)) {
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

/**
 * Every kyverno.io/v1 ClusterPolicy of the corpus suites, one file each. Variants share names
 * (best-practices/require-labels and best-practices-cel/require-labels): a later one is renamed
 * with its suite's category, so that every variant is loaded.
 */
export function writeCorpusClusterPolicies(corpus: string, dir: string): number {
  mkdirSync(dir, { recursive: true });
  const suites = readFileSync(join(corpus, "MANIFEST.tsv"), "utf8").split("\n").slice(1).map((l) => l.split("\t")[0] ?? "").filter((s) => s !== "");
  const seen = new Set<string>();
  for (const suite of suites) {
    const root = join(corpus, suite);
    if (!existsSync(root)) continue;
    for (const file of readdirSync(root).filter((f) => f.endsWith(".yaml") || f.endsWith(".yml")).sort()) {
      for (const doc of docsOf(join(root, file)).filter(isClusterPolicy)) {
        let name = String(doc.metadata?.name);
        if (seen.has(name)) name = `${name}-${suite.split("/")[0] ?? "dup"}`.slice(0, 250);
        if (seen.has(name)) continue;
        seen.add(name);
        if (doc.metadata !== undefined) doc.metadata.name = name;
        writeFileSync(join(dir, `${name}.yaml`), stringify(doc));
      }
    }
  }
  return seen.size;
}

/** The PriorityClass the bench Pods name (the API server's Priority plugin refuses an unknown one). */
export const BENCH_PRIORITY_CLASS = { apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "bench-normal" }, value: 1000, globalDefault: false };

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
  const labels = { app: "bench", "app.kubernetes.io/name": "bench", "app.kubernetes.io/version": "1.0.0", "app.kubernetes.io/part-of": "bench", owner: "bench", team: "bench", env: "test" };
  const probe = { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 10 };
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels },
    spec: {
      nodeName: node,
      priorityClassName: BENCH_PRIORITY_CLASS.metadata.name,
      automountServiceAccountToken: false,
      securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: "RuntimeDefault" } },
      containers: [{
        name: "app",
        image: "registry.invalid/bench/app:1.0.0",
        imagePullPolicy: "IfNotPresent",
        ports: [{ name: "http", containerPort: 8080 }],
        livenessProbe: probe,
        readinessProbe: probe,
        resources: { requests: { cpu: "10m", memory: "64Mi", "ephemeral-storage": "64Mi" }, limits: { memory: "64Mi", "ephemeral-storage": "64Mi" } },
        securityContext: { allowPrivilegeEscalation: false, privileged: false, capabilities: { drop: ["ALL", "NET_RAW", "SETFCAP", "SETUID"] }, readOnlyRootFilesystem: true, runAsNonRoot: true },
        volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
      }],
      volumes: [{ name: "tmp", emptyDir: { sizeLimit: "64Mi" } }],
    },
  };
}
