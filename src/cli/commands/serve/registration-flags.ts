/**
 * The flags of `bylaw serve --register` (server/app/registration-setup.ts describes registration),
 * checked into the plan the server registers by.
 */
import type { Endpoint, NameScheme } from "../../../controllers/registration/types.js";
import type { RegistrationPlan } from "../../../server/app/registration-setup.js";

export const REGISTRATION_FLAG_OPTIONS = {
  register: { type: "boolean", default: false },
  "server-url": { type: "string" },
  "service-name": { type: "string", default: "bylaw" },
  "service-namespace": { type: "string" },
  "service-port": { type: "string", default: "443" },
  "kyverno-webhook-names": { type: "boolean", default: false },
} as const;

type Values = {
  readonly register?: boolean | undefined;
  readonly "server-url"?: string | undefined;
  readonly "service-name"?: string | undefined;
  readonly "service-namespace"?: string | undefined;
  readonly "service-port"?: string | undefined;
  readonly "kyverno-webhook-names"?: boolean | undefined;
  readonly kubeconfig?: string | undefined;
};

/** Checks the registration flags; undefined without --register. */
export function registrationPlan(
  values: Values,
  env: NodeJS.ProcessEnv,
): { ok: true; value: RegistrationPlan | undefined } | { ok: false; error: string } {
  if (values.register !== true) {
    if (values["server-url"] !== undefined) return { ok: false, error: "--server-url needs --register" };
    if (values["kyverno-webhook-names"] === true)
      return { ok: false, error: "--kyverno-webhook-names needs --register (it names the webhooks Bylaw registers)" };
    return { ok: true, value: undefined };
  }
  // In a Pod, the namespace it runs in (downward API or the ServiceAccount mount) unless given.
  const ownNamespace = values["service-namespace"] ?? env["POD_NAMESPACE"] ?? "bylaw";
  const url = values["server-url"];
  let endpoint: Endpoint;
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { ok: false, error: `--server-url must be a URL like https://10.0.0.5:9443 (got ${JSON.stringify(url)})` };
    }
    if (
      parsed.protocol !== "https:" ||
      parsed.search !== "" ||
      parsed.hash !== "" ||
      parsed.username !== "" ||
      parsed.pathname !== "/"
    ) {
      return {
        ok: false,
        error: `--server-url must be https://HOST:PORT, with no path, query or credentials (got ${JSON.stringify(url)})`,
      };
    }
    endpoint = { kind: "url", base: `https://${parsed.host}` };
  } else {
    const port = Number(values["service-port"] ?? "443");
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      return {
        ok: false,
        error: `--service-port must be a port number (got ${JSON.stringify(values["service-port"])})`,
      };
    endpoint = { kind: "service", name: values["service-name"] ?? "bylaw", namespace: ownNamespace, port };
  }
  const names: NameScheme = values["kyverno-webhook-names"] === true ? "kyverno" : "bylaw";
  return { ok: true, value: { endpoint, ownNamespace, kubeconfig: values.kubeconfig, names } };
}
