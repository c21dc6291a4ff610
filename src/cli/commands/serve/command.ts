/** `bylaw serve`: the admission webhook over HTTPS, its metrics, and a graceful shutdown. */
import { parseArgs } from "node:util";
import { Registry } from "prom-client";
import { createEngine, type CompiledPolicy, type JsonValue, type PolicyProblem } from "../../../engine/index.js";
import { servePorts } from "../../../server/serve-ports.js";
import { createLogger, isLogLevel, logAdmission, type Logger } from "../../../server/logging/index.js";
import { bindPolicySource, createMetrics, type BylawMetrics } from "../../../server/metrics/index.js";
import type { AdmissionRecorder, ClusterFacts } from "../../../server/types.js";
import type { AdmissionDeps } from "../../../server/admission/deps.js";
import { AdmissionPlans } from "../../../server/admission/plans.js";
import { YamlV3Writer } from "../../../server/admission/yaml-v3.js";
import { createWorkerPool } from "../../../server/worker/worker-pool.js";
import {
  checkTimeoutGroups,
  DEADLINE_SHARE,
  DEFAULT_TIMEOUT_SECONDS,
  timeoutProblems,
  type TimeoutGroups,
  withEveryTimeout,
} from "../../../server/admission/webhook-groups.js";
import { ownWebhookProblems } from "../../../server/registration/own-webhook-problems.js";
import { operationProblems } from "../../../server/registration/operation-problems.js";
import { vetPolicy } from "../../../server/registration/registration-check.js";
import { admissionBudgetProblems } from "../../../server/policy-source/namespace-budget.js";
import { RegistrationStates } from "../../../server/registration/registration-states.js";
import type { PolicySnapshot, PolicySource } from "../../../server/types.js";
import type { Io } from "../../io.js";
import { SERVE_HELP } from "./help.js";
import { startServers } from "./start-servers.js";
import { resolveTls } from "./tls-setup.js";
import { tuneHeapForServing } from "./heap-tuning.js";
import {
  jmespathOf,
  policyReadsRoles,
  setUpLiveContext,
  withLiveReadiness,
  type LiveContext,
} from "./live-context-setup.js";
import { tenantProblems } from "../../../kube/tenant-problems.js";
import { describeBounds, RESOURCE_FLAG_OPTIONS, resourceBounds } from "./resource-flags.js";
import { METRICS_AUTH_FLAG_OPTIONS, metricsAuthFrom } from "./metrics-auth-flags.js";
import { namespaceBudgetFrom, POLICY_BUDGET_FLAG_OPTIONS } from "./policy-budget-flags.js";
import { HA_FLAG_OPTIONS, setUpHa } from "./ha-setup.js";
import { exceptionSettings, kyvernoExceptionFlags } from "./exception-flags.js";
import { openPolicySource, type ServedPolicySource } from "./policy-source-setup.js";
import { startGenerateController } from "../../../controllers/generate/generate-controller.js";
import {
  type Registration,
  REGISTRATION_FLAG_OPTIONS,
  registrationPlan,
  setUpRegistration,
} from "./registration-setup.js";

export { SERVE_HELP };

export const BYLAW_VERSION = "0.1.0";

/** The flags of `bylaw serve` (help.ts describes them). */
const SERVE_FLAG_OPTIONS = {
  policies: { type: "string" },
  "cluster-facts": { type: "string" },
  cluster: { type: "boolean", default: false },
  kubeconfig: { type: "string" },
  "cluster-cache-mib": { type: "string", default: "128" },
  "egress-allow": { type: "string", multiple: true },
  "generate-controller-as": { type: "string" },
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
  ...POLICY_BUDGET_FLAG_OPTIONS,
  ...REGISTRATION_FLAG_OPTIONS,
  ...HA_FLAG_OPTIONS,
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
  const usage = (msg: string): number => {
    io.err(`bylaw serve: ${msg}\nRun \`bylaw serve --help\` for usage.`);
    return 2;
  };
  const fromCluster = values.policies === undefined;
  if (fromCluster && values.cluster !== true && values.kubeconfig === undefined)
    return usage("--policies DIR is required (or --cluster / --kubeconfig FILE to read policies from the cluster)");
  if (fromCluster && values["cluster-facts"] !== undefined)
    return usage(
      "--cluster-facts is for --policies DIR; with policies from the cluster, namespace labels and roles come from the cluster",
    );
  const exceptions = exceptionSettings(values, fromCluster);
  if (!exceptions.ok) return usage(exceptions.error);
  const metricsOff = values["metrics-port"] === "off";
  const parsedNumbers = numberFlags(values, metricsOff);
  if (typeof parsedNumbers === "string") return usage(parsedNumbers);
  const numbers = parsedNumbers;
  // With --register, a policy with webhookConfiguration.matchConditions gets its own webhook (fineGrained).
  const declared: TimeoutGroups = {
    defaultSeconds: numbers["timeout-seconds"] ?? DEFAULT_TIMEOUT_SECONDS,
    extra: (values["timeout-group"] ?? []).map(Number),
    ...(values.register === true ? { fineGrained: true } : {}),
  };
  const badGroups = checkTimeoutGroups(declared);
  if (badGroups !== undefined) return usage(badGroups);
  // With --register every timeout is served, and registered once a policy asks for it.
  const groups = values.register === true ? withEveryTimeout(declared) : declared;
  const level = values["log-level"] ?? "info";
  if (!isLogLevel(level))
    return usage(`--log-level must be debug, info, warn, error or silent (got ${JSON.stringify(level)})`);
  const bounds = await resourceBounds(values, numbers["max-body-bytes"] ?? 7 * 1024 * 1024);
  if (!bounds.ok) return usage(bounds.error);
  const plan = registrationPlan(values, process.env);
  if (!plan.ok) return usage(plan.error);
  const metricsAuth = metricsOff ? { ok: true as const, value: undefined } : metricsAuthFrom(values);
  if (!metricsAuth.ok) return usage(metricsAuth.error);
  const namespaceBudget = namespaceBudgetFrom(values);
  if (!namespaceBudget.ok) return usage(namespaceBudget.error);
  const logger = createLogger({ level });
  // --leader-elect, --tls-secret: the Lease and the shared certificate Secret (ha-setup.ts).
  const ha = await setUpHa(values, (lvl, msg, fields) => logger[lvl](fields, `bylaw serve: ${msg}`));
  if (!ha.ok) return usage(ha.error);
  // With --leader-elect only the leader writes shared objects (policy status); without it, every replica does.
  const elector = ha.value.elector;
  const tls = ha.value.tls !== undefined ? { ok: true as const, value: ha.value.tls } : await resolveTls(values, io);
  if (!tls.ok) {
    await ha.value.close();
    return usage(tls.error);
  }

  tuneHeapForServing();
  let live: LiveContext | undefined;
  if (values.cluster === true || values.kubeconfig !== undefined) {
    const set = setUpLiveContext({
      ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
      cacheMiB: numbers["cluster-cache-mib"] ?? 128,
      ...(bounds.value.memoryLimitBytes !== undefined ? { memoryLimitBytes: bounds.value.memoryLimitBytes } : {}),
      egressAllow: values["egress-allow"] ?? [],
      imagePullSecrets: values["image-pull-secret"] ?? [],
      ...(values["service-namespace"] !== undefined ? { ownNamespace: values["service-namespace"] } : {}),
      compile: () => jmespathOf(engine),
      ...(elector !== undefined ? { isLeader: () => elector.isLeader() } : {}),
      onLog: (lvl, msg, fields) => logger[lvl](fields, `bylaw serve: ${msg}`),
    });
    if (!set.ok) {
      await ha.value.close();
      return usage(set.error);
    }
    live = set.value;
    io.err(`bylaw serve: live context from ${live.origin}`);
  }
  // The evaluation workers build their engines from the same ports (server/worker/evaluation-worker.ts).
  const ports = servePorts(live?.context);
  const engine = createEngine(ports);
  if (exceptions.value.warning !== undefined) logger.warn({}, `bylaw serve: ${exceptions.value.warning}`);
  // Tenant rules visible before substitution make a policy invalid; the rest is checked at run time.
  // With --register, a policy whose own webhook the API server would refuse (and every other policy's with it) is refused instead.
  const checkPolicy = (policy: CompiledPolicy): PolicyProblem[] => [
    ...timeoutProblems(policy, groups),
    ...ownWebhookProblems(policy, groups),
    ...operationProblems(policy),
    ...tenantProblems(policy.document as unknown as JsonValue, policy.namespace),
  ];
  // With --register, Ready means "the API server sends us this policy's requests" (registration-states.ts).
  const registered = plan.value !== undefined ? new RegistrationStates() : undefined;
  // Generate rules: the webhook stores their work as UpdateRequests; the leader runs them (src/controllers/generate/).
  const generateAs = values["generate-controller-as"];
  const generateNamespace =
    generateAs === undefined || (values.cluster !== true && values.kubeconfig === undefined)
      ? undefined
      : (values["service-namespace"] ?? process.env["POD_NAMESPACE"] ?? values["leader-elect-namespace"]);
  const source = await openPolicySource({
    engine,
    checkPolicy,
    onLog: (lvl, msg, fields) => logger[lvl](fields, msg),
    ...(values.policies !== undefined
      ? {
          folder: {
            dir: values.policies,
            allowEmpty: values["allow-empty-policies"] === true,
            ...(values["cluster-facts"] !== undefined ? { clusterFacts: values["cluster-facts"] } : {}),
          },
        }
      : live !== undefined
        ? {
            cluster: {
              live,
              cacheMiB: numbers["cluster-cache-mib"] ?? 128,
              exceptions: exceptions.value.scope,
              generateRuns: generateNamespace !== undefined,
              ...(registered !== undefined ? { registration: registered } : {}),
              namespaceBudget: namespaceBudget.value,
              ...(elector !== undefined
                ? { isLeader: () => elector.isLeader(), onLeaderChange: (l) => elector.onChange(l) }
                : {}),
            },
          }
        : {}),
  });
  const registry = new Registry();
  const metrics = createMetrics({
    registry,
    version: BYLAW_VERSION,
    maxSeriesBytes: bounds.value.metricsMaxBytes,
    maxNamespaces: bounds.value.metricsMaxNamespaces,
    canLoadContext: (kind) => ports.context.canLoad(kind),
    generateRuns: live !== undefined && generateNamespace !== undefined,
  });
  let registration: Registration | undefined;
  if (plan.value !== undefined) {
    const set = setUpRegistration({
      plan: plan.value,
      source,
      groups,
      tls: tls.value,
      ...(elector !== undefined
        ? { isLeader: () => elector.isLeader(), onLeaderChange: (l) => elector.onChange(l) }
        : {}),
      ...(registered !== undefined ? { states: registered } : {}),
      onLog: (lvl, msg, fields) => logger[lvl](fields, msg),
    });
    if (!set.ok) {
      await source.close();
      return usage(set.error);
    }
    registration = set.value;
    // --kyverno-webhook-names: never take over a configuration Kyverno (or anyone else) owns.
    const foreign = await registration.foreignConfigurations();
    if (foreign !== undefined) {
      io.err(`bylaw serve: ${foreign}`);
      registration.close();
      await source.close();
      live?.close();
      await ha.value.close();
      return 1;
    }
  }
  const unbind = bindPolicySource(metrics, source);
  ha.value.bindMetrics(registry);
  const unfollow = live?.follow(source);
  const recorder = admissionRecorder(metrics, logger);
  const cluster = clusterFacts(source, live);
  const now = (): number => performance.now() / 1000;
  // With live context the workers' engines read it through a bridge to this thread's caches
  // (server/worker/context-bridge.ts), so reviews that leave their batch finish off this thread there too.
  const workers = Math.floor(numbers["eval-workers"] ?? 1);
  const limit = bounds.value.memoryLimitBytes;
  const runner =
    workers > 0
      ? createWorkerPool({
          size: workers,
          now,
          // A tenant's review that builds huge values ends its worker, not the process (issue 32 §6).
          ...(limit !== undefined ? { heapMiB: Math.max(32, Math.floor(limit / 4 / 1024 / 1024)) } : {}),
          ...(live !== undefined ? { context: live.context } : {}),
          onEvent: (event, detail) => logger.warn(detail, `bylaw serve: evaluation ${event}`),
        })
      : undefined;
  const generate =
    live !== undefined && generateNamespace !== undefined
      ? startGenerateController({
          ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
          namespace: generateNamespace,
          ...(generateAs !== undefined ? { serviceAccount: generateAs } : {}),
          instance: process.env["POD_NAME"] ?? "bylaw",
          policies: () => source.current().policies,
          ...(elector !== undefined ? { isLeader: () => elector.isLeader() } : {}),
          random: { next: Math.random },
          onLog: (lvl, msg, fields) => logger[lvl](fields, `bylaw serve: ${msg}`),
        })
      : undefined;
  if (generate !== undefined && !generate.ok) logger.warn({}, `bylaw serve: ${generate.error}`);
  const deps: AdmissionDeps = {
    engine,
    ...(generate?.ok === true ? { onGenerateWork: (work) => generate.value.submit(work) } : {}),
    policies: () => loadedPolicies(source),
    cluster,
    recorder,
    now,
    ...(runner !== undefined ? { runner } : {}),
    ...(live !== undefined ? { calls: live.reviewCalls } : {}),
    deadlineSeconds: groups.defaultSeconds * DEADLINE_SHARE,
    plans: new AdmissionPlans(),
    // From the cluster, a new tenant policy its namespace has no room for is refused at kubectl apply.
    vetPolicy: vetPolicy(
      live === undefined
        ? checkPolicy
        : (p) => [...checkPolicy(p), ...admissionBudgetProblems(p, source.current().policies, namespaceBudget.value)],
      registration?.registrar,
      registration?.policyChecks,
    ),
    denialYaml: new YamlV3Writer(),
    ...(exceptions.value.namespaces !== undefined ? { exceptionNamespaces: exceptions.value.namespaces } : {}),
    // What the policy webhook warns about a PolicyException being created: the scope its cluster source honours.
    ...(values.policies !== undefined
      ? { clusterExceptions: "folder" as const }
      : live !== undefined
        ? { clusterExceptions: exceptions.value.scope }
        : {}),
  };
  const servers = await startServers({
    deps,
    groups,
    source: ha.value.withReadiness(withLiveReadiness(source, live)),
    tls: tls.value,
    host: values.host ?? "0.0.0.0",
    port: numbers["port"] ?? 9443,
    metricsPort: metricsOff ? undefined : (numbers["metrics-port"] ?? 8000),
    maxBodyBytes: numbers["max-body-bytes"] ?? 7 * 1024 * 1024,
    metrics,
    registry,
    logger,
    bounds: bounds.value,
    metricsAuth: metricsAuth.value,
  });
  logger.info(
    {
      port: servers.port,
      metricsPort: servers.metricsPort,
      policies: source.current().policies.length,
      ...describeBounds(bounds.value),
    },
    "bylaw serve: listening",
  );
  io.err(
    `bylaw serve: listening on https://${values.host}:${servers.port} (metrics on ${servers.metricsPort === undefined ? "-" : `:${servers.metricsPort}`}), ${source.current().policies.length} policies loaded`,
  );
  // Registered only once the server answers: the API server calls the webhooks as soon as they exist.
  registration?.start();

  await stopSignal(signals);
  logger.info({}, "bylaw serve: shutting down");
  // The webhook configurations stay registered: a Fail webhook keeps refusing while Bylaw is down.
  registration?.close();
  await ha.value.close();
  await servers.close((numbers["grace-seconds"] ?? 15) * 1000);
  await runner?.close();
  if (generate?.ok === true) generate.value.close();
  unbind();
  unfollow?.();
  live?.close();
  await source.close();
  tls.value.close();
  return 0;
}

/** The number flags, parsed; or what is wrong with one. `--metrics-port off` is left out. */
function numberFlags(
  values: Partial<Record<(typeof NUMBER_FLAGS)[number], string>>,
  metricsOff: boolean,
): Record<string, number> | string {
  const numbers: Record<string, number> = {};
  for (const k of NUMBER_FLAGS) {
    if (k === "metrics-port" && metricsOff) continue;
    const n = Number(values[k]);
    if (!Number.isFinite(n) || n < 0) return `--${k} must be a non-negative number (got ${JSON.stringify(values[k])})`;
    numbers[k] = n;
  }
  return numbers;
}

/** Each review's outcome goes to the metrics and the log; its rule results to the metrics. */
function admissionRecorder(metrics: BylawMetrics, logger: Logger): AdmissionRecorder {
  return {
    admission: (outcome) => {
      metrics.admission(outcome);
      logAdmission(logger, outcome);
    },
    policyResults: (review, response, ruleType, secondsEach) =>
      metrics.policyResults(review, response, ruleType, secondsEach),
  };
}

/** Namespace labels and roles: from the cluster's caches with live context, else from the policy folder's facts file. */
function clusterFacts(source: ServedPolicySource, live: LiveContext | undefined): ClusterFacts {
  return {
    namespaceLabels: (ns) =>
      live !== undefined ? live.cluster.namespaceLabels(ns) : source.cluster().namespaceLabels(ns),
    // Roles come from RBAC watches once a policy reads them; otherwise from the facts file, as offline.
    roles: (user) => (live?.cluster.watchesRoles === true ? live.cluster.roles(user) : source.cluster().roles(user)),
    ...(live !== undefined
      ? { needsRoles: (policies: readonly CompiledPolicy[]) => policies.some(policyReadsRoles) }
      : {}),
  };
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
 * The current policy set, for the handlers. Until a set has loaded there is nothing to evaluate a
 * review against: it throws, so that each review is answered per its webhook's failurePolicy (an
 * error: denied through a Fail webhook) rather than allowed for want of policies.
 */
function loadedPolicies(source: PolicySource): PolicySnapshot {
  const snapshot = source.current();
  if (snapshot.generation === 0) {
    const why = source.lastError()?.message;
    throw new Error(`no policy set has loaded yet${why !== undefined ? ` (${why})` : ""}; no review can be evaluated`);
  }
  return snapshot;
}
