/**
 * The flags of `bylaw serve --leader-elect` and `--tls-secret`, checked into the settings the server
 * builds leader election and the certificate Secret from (server/app/ha-setup.ts).
 */
import { readFileSync } from "node:fs";
import { IN_CLUSTER_DIR } from "../../../kube/kubeconfig.js";
import { DEFAULT_ROTATION } from "../../../controllers/tls-secret/cert-rotation.js";
import type { HaSettings } from "../../../server/app/ha-setup.js";
import { parseDuration } from "./duration.js";

export const HA_FLAG_OPTIONS = {
  "leader-elect": { type: "boolean", default: false },
  "leader-elect-lease": { type: "string", default: "bylaw-admission" },
  "leader-elect-namespace": { type: "string" },
  "leader-elect-lease-duration": { type: "string", default: "15s" },
  "leader-elect-renew-deadline": { type: "string", default: "10s" },
  "leader-elect-retry-period": { type: "string", default: "2s" },
  "tls-secret": { type: "string" },
  "service-name": { type: "string" },
  "tls-renew-before": { type: "string", default: "15d" },
  "tls-ca-overlap": { type: "string", default: "1m" },
} as const;

type Flags = {
  "leader-elect"?: boolean | undefined;
  "leader-elect-lease"?: string | undefined;
  "leader-elect-namespace"?: string | undefined;
  "leader-elect-lease-duration"?: string | undefined;
  "leader-elect-renew-deadline"?: string | undefined;
  "leader-elect-retry-period"?: string | undefined;
  "tls-secret"?: string | undefined;
  "service-name"?: string | undefined;
  "tls-renew-before"?: string | undefined;
  "tls-ca-overlap"?: string | undefined;
  "tls-cert-file"?: string | undefined;
  "self-signed"?: boolean | undefined;
  "dns-name"?: string[] | undefined;
  kubeconfig?: string | undefined;
};

/** This pod's namespace: POD_NAMESPACE, else the ServiceAccount's. */
function ownNamespace(): string | undefined {
  if (process.env["POD_NAMESPACE"] !== undefined && process.env["POD_NAMESPACE"] !== "")
    return process.env["POD_NAMESPACE"];
  try {
    return readFileSync(`${IN_CLUSTER_DIR}/namespace`, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The settings the flags ask for (undefined: neither --leader-elect nor --tls-secret); or what is wrong with them. */
export function haSettings(values: Flags): { ok: true; value: HaSettings | undefined } | { ok: false; error: string } {
  const secretFlag = values["tls-secret"];
  if (values["leader-elect"] !== true && secretFlag === undefined) return { ok: true, value: undefined };
  if (secretFlag !== undefined && (values["tls-cert-file"] !== undefined || values["self-signed"] === true))
    return {
      ok: false,
      error: "use one of --tls-secret, --tls-cert-file/--tls-key-file (e.g. from cert-manager) or --self-signed",
    };
  if (secretFlag !== undefined && values["leader-elect"] !== true)
    return { ok: false, error: "--tls-secret needs --leader-elect: only the leader writes the Secret" };
  const durations: Record<string, number> = {};
  for (const k of [
    "leader-elect-lease-duration",
    "leader-elect-renew-deadline",
    "leader-elect-retry-period",
    "tls-renew-before",
    "tls-ca-overlap",
  ] as const) {
    const d = parseDuration(values[k] ?? "");
    if (d === undefined)
      return {
        ok: false,
        error: `--${k} must be a duration such as 500ms, 15s, 1m, 12h or 15d (got ${JSON.stringify(values[k])})`,
      };
    durations[k] = d;
  }
  const namespace = values["leader-elect-namespace"] ?? ownNamespace();
  if (namespace === undefined)
    return {
      ok: false,
      error:
        "--leader-elect needs --leader-elect-namespace NS outside a cluster (in a pod: POD_NAMESPACE or the ServiceAccount's namespace)",
    };
  return {
    ok: true,
    value: {
      leaseName: values["leader-elect-lease"] ?? "bylaw-admission",
      namespace,
      leaseDurationMs: durations["leader-elect-lease-duration"] as number,
      renewDeadlineMs: durations["leader-elect-renew-deadline"] as number,
      retryPeriodMs: durations["leader-elect-retry-period"] as number,
      tlsSecret: secretFlag,
      serviceName: values["service-name"],
      dnsNames: values["dns-name"] ?? [],
      renewBeforeMs: durations["tls-renew-before"] ?? DEFAULT_ROTATION.renewBeforeMs,
      caOverlapMs: durations["tls-ca-overlap"] ?? DEFAULT_ROTATION.caOverlapMs,
      kubeconfig: values.kubeconfig,
    },
  };
}
