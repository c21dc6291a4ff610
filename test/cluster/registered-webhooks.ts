/** What the registration cluster tests read back: Bylaw's registered validating webhooks, and the reviews it counted. */
import { kubectlOk, type Cluster } from "./cluster-harness.js";

export interface Registered {
  readonly name: string;
  readonly failurePolicy: string;
  readonly matchPolicy?: string;
  readonly timeoutSeconds?: number;
  readonly matchConditions?: { readonly name: string; readonly expression: string }[];
  readonly clientConfig: { readonly url?: string };
  readonly rules: {
    readonly apiGroups: string[];
    readonly resources: string[];
    readonly operations: string[];
    readonly scope?: string;
  }[];
}

/** The webhooks of `bylaw-resource-validating-webhook-cfg`. */
export async function validatingWebhooks(cluster: Cluster): Promise<Registered[]> {
  const json = JSON.parse(
    await kubectlOk(cluster, [
      "get",
      "validatingwebhookconfiguration",
      "bylaw-resource-validating-webhook-cfg",
      "-o",
      "json",
    ]),
  ) as { webhooks?: Registered[] };
  return json.webhooks ?? [];
}

/** Admission reviews Bylaw counted for a kind in a namespace (kyverno_admission_requests_total), read from its metrics port. */
export async function reviewsOf(metricsPort: string | undefined, kind: string, namespace: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return text
    .split("\n")
    .filter(
      (l) =>
        l.startsWith("kyverno_admission_requests_total{") &&
        l.includes(`resource_kind="${kind}"`) &&
        l.includes(`resource_namespace="${namespace}"`),
    )
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
}
