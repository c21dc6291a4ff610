/**
 * `bylaw serve`: the admission webhook over HTTPS, its metrics, and a graceful shutdown. This
 * command parses and checks the flags; the server process is built by server/app/app.ts.
 */
import { parseArgs } from "node:util";
import { isLogLevel } from "../../../server/logging/index.js";
import {
  checkTimeoutGroups,
  DEFAULT_TIMEOUT_SECONDS,
  type TimeoutGroups,
  withEveryTimeout,
} from "../../../server/admission/webhook-groups.js";
import { startServe } from "../../../server/app/app.js";
import type { Io } from "../../io.js";
import { SERVE_HELP } from "./help.js";
import { RESOURCE_FLAG_OPTIONS, resourceBounds } from "./resource-flags.js";
import { METRICS_AUTH_FLAG_OPTIONS, metricsAuthFrom } from "./metrics-auth-flags.js";
import { UI_FLAG_OPTIONS, uiFrom } from "./ui-flags.js";
import { namespaceBudgetFrom, POLICY_BUDGET_FLAG_OPTIONS } from "./policy-budget-flags.js";
import { HA_FLAG_OPTIONS, haSettings } from "./ha-flags.js";
import {
  BACKGROUND_SCAN_WORKERS,
  REPORT_FLAG_OPTIONS,
  backgroundScanInterval,
  backgroundScanWorkers,
} from "./report-flags.js";
import { SERVICE_ACCOUNT_FLAG_OPTIONS, serviceAccountUsers } from "./service-account-flags.js";
import { EVENT_FLAG_OPTIONS, eventSettings } from "./event-flags.js";
import { exceptionSettings, kyvernoExceptionFlags } from "./exception-flags.js";
import { REGISTRATION_FLAG_OPTIONS, registrationPlan } from "./registration-flags.js";
import { COMPONENT_FLAG_OPTIONS, componentsFrom } from "./component-flags.js";
import { MONITORING_FLAG_OPTIONS, monitoringLoki, monitoringSettings } from "./monitoring-flags.js";
import { RATE_LIMIT_FLAG_OPTIONS, rateLimitsFrom } from "./rate-limit-flags.js";

export { SERVE_HELP };

/** The flags of `bylaw serve` (help.ts describes them). */
const SERVE_FLAG_OPTIONS = {
  policies: { type: "string" },
  "cluster-facts": { type: "string" },
  cluster: { type: "boolean", default: false },
  kubeconfig: { type: "string" },
  "generate-controller-as": { type: "string" },
  "cleanup-controller": { type: "boolean", default: false },
  "reports-controller": { type: "boolean", default: false },
  "cluster-cache-mib": { type: "string", default: "128" },
  "egress-allow": { type: "string", multiple: true },
  "image-pull-secret": { type: "string", multiple: true },
  "exception-namespace": { type: "string", multiple: true },
  "enable-policy-exception": { type: "boolean", default: false },
  "tls-cert-file": { type: "string" },
  "tls-ca-file": { type: "string" },
  "tls-key-file": { type: "string" },
  "self-signed": { type: "boolean", default: false },
  "dns-name": { type: "string", multiple: true },
  host: { type: "string", default: "0.0.0.0" },
  port: { type: "string", default: "9443" },
  "metrics-port": { type: "string", default: "8000" },
  "timeout-seconds": { type: "string", default: "10" },
  "timeout-group": { type: "string", multiple: true },
  "allow-empty-policies": { type: "boolean", default: false },
  "max-body-bytes": { type: "string", default: String(7 * 1024 * 1024) },
  "grace-seconds": { type: "string", default: "15" },
  "eval-workers": { type: "string", default: "1" },
  "log-level": { type: "string", default: "info" },
  ...RESOURCE_FLAG_OPTIONS,
  ...METRICS_AUTH_FLAG_OPTIONS,
  ...UI_FLAG_OPTIONS,
  ...POLICY_BUDGET_FLAG_OPTIONS,
  ...REGISTRATION_FLAG_OPTIONS,
  ...HA_FLAG_OPTIONS,
  ...REPORT_FLAG_OPTIONS,
  ...RATE_LIMIT_FLAG_OPTIONS,
  ...SERVICE_ACCOUNT_FLAG_OPTIONS,
  ...EVENT_FLAG_OPTIONS,
  ...COMPONENT_FLAG_OPTIONS,
  ...MONITORING_FLAG_OPTIONS,
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The flags that take a non-negative number. */
const NUMBER_FLAGS = [
  "port",
  "metrics-port",
  "timeout-seconds",
  "max-body-bytes",
  "grace-seconds",
  "eval-workers",
  "cluster-cache-mib",
] as const;

export async function serveCommand(args: string[], io: Io, signals: NodeJS.EventEmitter = process): Promise<number> {
  const { values } = parseArgs({
    args: kyvernoExceptionFlags(args),
    options: SERVE_FLAG_OPTIONS,
  });
  if (values.help) {
    io.out(SERVE_HELP);
    return 0;
  }
  const usage = (msg: string): number => usageError(io, msg);
  const fromCluster = values.policies === undefined;
  const sourceProblem = policySourceProblem(values);
  if (sourceProblem !== undefined) return usage(sourceProblem);
  const exceptions = exceptionSettings(values, fromCluster);
  if (!exceptions.ok) return usage(exceptions.error);
  const metricsOff = values["metrics-port"] === "off";
  const parsedNumbers = numberFlags(values, metricsOff);
  if (typeof parsedNumbers === "string") return usage(parsedNumbers);
  const numbers = parsedNumbers;
  const groups = timeoutGroups(values, numbers["timeout-seconds"]);
  if (typeof groups === "string") return usage(groups);
  const level = values["log-level"] ?? "info";
  if (!isLogLevel(level))
    return usage(`--log-level must be debug, info, warn, error or silent (got ${JSON.stringify(level)})`);
  const bounds = await resourceBounds(values, numbers["max-body-bytes"] ?? 7 * 1024 * 1024);
  if (!bounds.ok) return usage(bounds.error);
  const plan = registrationPlan(values, process.env);
  if (!plan.ok) return usage(plan.error);
  const listeners = metricsAuthAndUi(values, metricsOff);
  if (!listeners.ok) return usage(listeners.error);
  const namespaceBudget = namespaceBudgetFrom(values);
  if (!namespaceBudget.ok) return usage(namespaceBudget.error);
  const ha = await haEventsAndComponents(values);
  if (!ha.ok) return usage(ha.error);
  const options = serveOptions({
    values,
    numbers,
    metricsOff,
    checked: {
      exceptions: exceptions.value,
      groups,
      logLevel: level,
      bounds: bounds.value,
      registration: plan.value,
      ...listeners.value,
      namespaceBudget: namespaceBudget.value,
      ...ha.value,
    },
  });
  const started = await startServe(options, io);
  if (!started.ok) {
    if (started.code === 2) return usage(started.error);
    io.err(started.error);
    return started.code;
  }
  await stopSignal(signals);
  await started.value.close();
  return 0;
}

/** Leader election and the certificate Secret (ha-flags.ts), Events (event-flags.ts), the components this process runs (component-flags.ts), the monitoring component's settings (monitoring-flags.ts), the components' ServiceAccounts (service-account-flags.ts) and the clients' budgets (rate-limit-flags.ts). */
async function haEventsAndComponents(
  values: ServeFlags,
): Promise<
  | { ok: true; value: Pick<StartOptions, "ha" | "events" | "components" | "monitoring" | "accounts" | "rateLimits"> }
  | { ok: false; error: string }
> {
  const ha = haSettings(values);
  if (!ha.ok) return ha;
  const rateLimits = rateLimitsFrom(values);
  if (!rateLimits.ok) return rateLimits;
  const events = eventSettings(values);
  if (!events.ok) return events;
  const components = componentsFrom(values, ownNamespace(values));
  if (!components.ok) return components;
  const monitoring = monitoringSettings(values);
  if (!monitoring.ok) return monitoring;
  const loki = await monitoringLoki(values, components.value);
  if (!loki.ok) return loki;
  // A bare ServiceAccount name is in Bylaw's namespace (registration's default: bylaw).
  const accounts = serviceAccountUsers(values, ownNamespace(values) ?? "bylaw");
  if (!accounts.ok) return accounts;
  return {
    ok: true,
    value: {
      ha: ha.value,
      events: events.value,
      components: components.value,
      monitoring: { ...monitoring.value, loki: loki.value },
      accounts: accounts.value,
      rateLimits: rateLimits.value,
    },
  };
}

/** Prints a flag error with the usage hint; exit code 2. */
function usageError(io: Io, msg: string): number {
  io.err(`bylaw serve: ${msg}\nRun \`bylaw serve --help\` for usage.`);
  return 2;
}

/** What is wrong with where the policies come from (--policies, --cluster, --kubeconfig, --cluster-facts). */
function policySourceProblem(values: {
  readonly policies?: string | undefined;
  readonly cluster?: boolean | undefined;
  readonly kubeconfig?: string | undefined;
  readonly "cluster-facts"?: string | undefined;
}): string | undefined {
  const fromCluster = values.policies === undefined;
  if (fromCluster && values.cluster !== true && values.kubeconfig === undefined)
    return "--policies DIR is required (or --cluster / --kubeconfig FILE to read policies from the cluster)";
  if (fromCluster && values["cluster-facts"] !== undefined)
    return "--cluster-facts is for --policies DIR; with policies from the cluster, namespace labels and roles come from the cluster";
  return undefined;
}

/** The timeout groups the flags declare, checked; or what is wrong with them. */
function timeoutGroups(
  values: { readonly "timeout-group"?: readonly string[] | undefined; readonly register?: boolean | undefined },
  timeoutSeconds: number | undefined,
): TimeoutGroups | string {
  // With --register, a policy with webhookConfiguration.matchConditions gets its own webhook (fineGrained).
  const declared: TimeoutGroups = {
    defaultSeconds: timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
    extra: (values["timeout-group"] ?? []).map(Number),
    ...(values.register === true ? { fineGrained: true } : {}),
  };
  const badGroups = checkTimeoutGroups(declared);
  if (badGroups !== undefined) return badGroups;
  // With --register every timeout is served, and registered once a policy asks for it.
  return values.register === true ? withEveryTimeout(declared) : declared;
}

type ServeFlags = ReturnType<typeof parseArgs<{ args: string[]; options: typeof SERVE_FLAG_OPTIONS }>>["values"];
type StartOptions = Parameters<typeof startServe>[0];

/** The server's options: the checked settings, and the plain flags with their defaults. */
function serveOptions(o: {
  readonly values: ServeFlags;
  readonly numbers: Record<string, number>;
  readonly metricsOff: boolean;
  readonly checked: Pick<
    StartOptions,
    | "exceptions"
    | "groups"
    | "logLevel"
    | "bounds"
    | "registration"
    | "metricsAuth"
    | "ui"
    | "namespaceBudget"
    | "rateLimits"
    | "accounts"
    | "ha"
    | "events"
    | "components"
    | "monitoring"
  >;
}): StartOptions {
  const { values, numbers } = o;
  return {
    ...o.checked,
    policies: values.policies,
    clusterFacts: values["cluster-facts"],
    allowEmptyPolicies: values["allow-empty-policies"] === true,
    live: values.cluster === true || values.kubeconfig !== undefined,
    cleanupController: values["cleanup-controller"] === true,
    reportsController: values["reports-controller"] === true,
    reportFormat: values["openreports-enabled"] === true ? "openreports" : "wgpolicyk8s",
    kubeconfig: values.kubeconfig,
    cacheMiB: numbers["cluster-cache-mib"] ?? 128,
    egressAllow: values["egress-allow"] ?? [],
    imagePullSecrets: values["image-pull-secret"] ?? [],
    serviceNamespace: values["service-namespace"],
    generate: generateSettings(values),
    ownNamespace: ownNamespace(values),
    tls: values,
    host: values.host ?? "0.0.0.0",
    port: numbers["port"] ?? 9443,
    metricsPort: o.metricsOff ? undefined : (numbers["metrics-port"] ?? 8000),
    maxBodyBytes: numbers["max-body-bytes"] ?? 7 * 1024 * 1024,
    evalWorkers: numbers["eval-workers"] ?? 1,
    graceSeconds: numbers["grace-seconds"] ?? 15,
    backgroundScanIntervalMs: numbers["background-scan-interval"] ?? 3_600_000,
    backgroundScanWorkers: numbers["background-scan-workers"] ?? BACKGROUND_SCAN_WORKERS,
  };
}

/**
 * The number flags, parsed, `--background-scan-interval` in milliseconds and
 * `--background-scan-workers`; or what is wrong with one. `--metrics-port off` is left out.
 */
function numberFlags(
  values: Partial<
    Record<(typeof NUMBER_FLAGS)[number] | "background-scan-interval" | "background-scan-workers", string>
  >,
  metricsOff: boolean,
): Record<string, number> | string {
  const interval = backgroundScanInterval(values);
  if (!interval.ok) return interval.error;
  const workers = backgroundScanWorkers(values);
  if (!workers.ok) return workers.error;
  const numbers: Record<string, number> = {};
  for (const k of NUMBER_FLAGS) {
    if (k === "metrics-port" && metricsOff) continue;
    const n = Number(values[k]);
    if (!Number.isFinite(n) || n < 0) return `--${k} must be a non-negative number (got ${JSON.stringify(values[k])})`;
    numbers[k] = n;
  }
  return { ...numbers, "background-scan-interval": interval.value, "background-scan-workers": workers.value };
}

/** The checks `--metrics-auth` and `--ui-port` ask for; or what is wrong with one of them. */
function metricsAuthAndUi(
  values: ServeFlags,
  metricsOff: boolean,
): { ok: true; value: Pick<StartOptions, "metricsAuth" | "ui"> } | { ok: false; error: string } {
  const metricsAuth = metricsOff ? { ok: true as const, value: undefined } : metricsAuthFrom(values);
  if (!metricsAuth.ok) return metricsAuth;
  const ui = uiFrom(values);
  if (!ui.ok) return ui;
  return { ok: true, value: { metricsAuth: metricsAuth.value, ui: ui.value } };
}

/** Resolves at the first SIGTERM or SIGINT. */
function stopSignal(signals: NodeJS.EventEmitter): Promise<void> {
  return new Promise<void>((resolveStop) => {
    const stop = (): void => resolveStop();
    signals.once("SIGTERM", stop);
    signals.once("SIGINT", stop);
  });
}

/**
 * --generate-controller-as SA: generate rules run (UpdateRequests in Bylaw's namespace, on the leader),
 * acting as SA; only with policies from the cluster. Bylaw's namespace: --service-namespace, else
 * POD_NAMESPACE, else --leader-elect-namespace.
 */
function generateSettings(values: ServeFlags): { serviceAccount: string; namespace: string } | undefined {
  const serviceAccount = values["generate-controller-as"];
  if (serviceAccount === undefined || (values.cluster !== true && values.kubeconfig === undefined)) return undefined;
  const namespace = ownNamespace(values);
  return namespace === undefined ? undefined : { serviceAccount, namespace };
}

/** Bylaw's namespace: --service-namespace, else POD_NAMESPACE, else --leader-elect-namespace. */
function ownNamespace(values: ServeFlags): string | undefined {
  return values["service-namespace"] ?? process.env["POD_NAMESPACE"] ?? values["leader-elect-namespace"];
}
