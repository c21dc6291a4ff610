/**
 * The webhook bench workload: the Pod Security Standards ClusterPolicies of the Kyverno policy
 * library (baseline without the host-ports-range variant, plus restricted: the 17 Kyverno benchmarks
 * itself with), switched to Enforce, and a mix of passing and failing Pod AdmissionReviews. The same
 * controls written in CEL come from the library's `pod-security-cel` (ClusterPolicies with
 * validate.cel) and `pod-security-vpol` (ValidatingPolicies, switched to Deny) folders.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";

const SETS: readonly string[] = ["baseline", "restricted"];
const LEFT_OUT = new Set(["disallow-host-ports-range"]);

/** `folder`: pod-security (JMESPath patterns), pod-security-cel (validate.cel) or pod-security-vpol (ValidatingPolicy). */
export function pssPolicyFiles(corpus: string, folder = "pod-security"): string[] {
  const root = join(corpus, folder);
  const out: string[] = [];
  for (const set of SETS) {
    for (const name of readdirNames(join(root, set))) {
      if (!LEFT_OUT.has(name)) out.push(join(root, set, name, `${name}.yaml`));
    }
  }
  return out;
}

function readdirNames(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Writes `copies` × the PSS policies (renamed after the first copy), in Enforce, into `dir`. */
export function writeEnforcePolicies(files: readonly string[], dir: string, total: number): number {
  mkdirSync(dir, { recursive: true });
  const docs = files.map((f) => parseAllDocuments(readFileSync(f, "utf8"))[0]?.toJSON() as Record<string, unknown>);
  let written = 0;
  for (let copy = 0; written < total; copy++) {
    for (const doc of docs) {
      if (written >= total) break;
      const clone = JSON.parse(JSON.stringify(doc)) as {
        kind: string;
        metadata: { name: string };
        spec: Record<string, unknown> & { rules?: { validate?: Record<string, unknown> }[] };
      };
      if (copy > 0) clone.metadata.name = `${clone.metadata.name}-${copy}`;
      if (clone.kind === "ValidatingPolicy") {
        clone.spec["validationActions"] = ["Deny"];
      } else {
        clone.spec["validationFailureAction"] = "Enforce";
        for (const r of clone.spec.rules ?? []) if (r.validate) r.validate["failureAction"] = "Enforce";
      }
      writeFileSync(join(dir, `${clone.metadata.name}.yaml`), stringify(clone));
      written++;
    }
  }
  return written;
}

/** The passing Pod of the webhook bench (and of bench:twins): every PSS restricted check holds. */
export const goodPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web", namespace: "shop", labels: { app: "web" } },
  spec: {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
    containers: [
      {
        name: "app",
        image: "registry.example.com/shop/web:1.2.3",
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] }, runAsNonRoot: true },
        ports: [{ containerPort: 8080 }],
      },
      {
        name: "sidecar",
        image: "registry.example.com/shop/proxy:2.0",
        securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] }, runAsNonRoot: true },
      },
    ],
    volumes: [{ name: "cache", emptyDir: {} }],
  },
};

const badPod = {
  ...goodPod,
  metadata: { ...goodPod.metadata, name: "debug" },
  spec: {
    ...goodPod.spec,
    hostNetwork: true,
    containers: [{ name: "shell", image: "busybox", securityContext: { privileged: true } }],
  },
};

/** AdmissionReview bodies: every `failEvery`-th one is a failing Pod. */
export function reviewBodies(count: number, failEvery = 4): string[] {
  return Array.from({ length: count }, (_, i) => reviewBody(i, i % failEvery === failEvery - 1 ? badPod : goodPod));
}

/** AdmissionReview bodies of `pod(i)` each (the cluster bench's Pod, for one). */
export function podReviewBodies(count: number, pod: (i: number) => Record<string, unknown>): string[] {
  return Array.from({ length: count }, (_, i) => reviewBody(i, pod(i)));
}

/** One Pod CREATE in namespace shop as the API server sends it. */
function reviewBody(i: number, pod: Record<string, unknown>): string {
  const metadata = (pod["metadata"] ?? {}) as { name?: string };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`,
      kind: { group: "", version: "v1", kind: "Pod" },
      resource: { group: "", version: "v1", resource: "pods" },
      requestKind: { group: "", version: "v1", kind: "Pod" },
      name: metadata.name,
      namespace: "shop",
      operation: "CREATE",
      userInfo: { username: "dev@example.com", groups: ["system:authenticated"] },
      object: { ...pod, metadata: { ...metadata, namespace: "shop" } },
      dryRun: false,
    },
  });
}
