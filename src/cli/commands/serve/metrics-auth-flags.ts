/**
 * `--metrics-auth token|none`: with token, /metrics is served over HTTPS with the webhook's serving
 * certificate and only to a bearer token the API server accepts (TokenReview) for a user allowed to
 * `get` the non-resource URL /metrics (SubjectAccessReview), as kube-rbac-proxy does. Needs an API
 * server (--cluster, --kubeconfig, or in a pod) and create on tokenreviews and subjectaccessreviews.
 */
import { KubeClient } from "../../../kube/kube-client.js";
import { resolveConnection } from "../../../kube/kubeconfig.js";
import { MetricsAccessReviewer } from "../../../kube/metrics-access.js";
import type { MetricsAuth } from "../../../server/app/types.js";

export const METRICS_AUTH_FLAG_OPTIONS = {
  "metrics-auth": { type: "string", default: "none" },
} as const;

interface Values {
  readonly "metrics-auth"?: string | undefined;
  readonly kubeconfig?: string | undefined;
}

/** The scrape check `--metrics-auth` asks for (undefined: none); or what is wrong with the flags. */
export function metricsAuthFrom(
  values: Values,
  env: NodeJS.ProcessEnv = process.env,
): { ok: true; value: MetricsAuth | undefined } | { ok: false; error: string } {
  const mode = values["metrics-auth"] ?? "none";
  if (mode === "none") return { ok: true, value: undefined };
  if (mode !== "token")
    return { ok: false, error: `--metrics-auth must be token or none (got ${JSON.stringify(mode)})` };
  const conn = resolveConnection({
    ...(values.kubeconfig !== undefined ? { kubeconfigFlag: values.kubeconfig } : {}),
    env,
    now: () => Date.now(),
  });
  if (!conn.ok) return { ok: false, error: `--metrics-auth token needs the API server: ${conn.error.message}` };
  // A client of its own, with a small rate: scrapes with made-up tokens cannot take the policy watches' requests.
  const client = new KubeClient({ connection: conn.value, qps: 5, burst: 10, timeoutMs: 5_000 });
  const reviewer = new MetricsAccessReviewer({ client });
  return { ok: true, value: { authorize: (h) => reviewer.check(h), close: () => client.close() } };
}
