/**
 * The composition root of the server process (`bylaw serve`): from one options object, the ports,
 * the informers and live context, the engine, the policy source, the evaluation workers, the HTTPS
 * and metrics servers, and the controllers this process runs (leader election and the certificate
 * Secret in ha-setup.ts, policy status in the policy source, webhook registration in controllersOf
 * below). The CLI (cli/commands/serve/command.ts) only parses and checks flags, builds the options
 * and calls `startServe`; it stops the process with the `close()` it gets back.
 */
import { Registry } from "prom-client";
import {
  createEngine,
  type CompiledPolicy,
  type JsonValue,
  type PolicyProblem,
  type ReportFormat,
} from "../../engine/index.js";
import { servePorts } from "../serve-ports.js";
import { createLogger, logAdmission, type Logger } from "../logging/index.js";
import {
  bindPolicySource,
  backgroundScanFailures,
  cleanupCounters,
  controllerCounters,
  createMetrics,
  registerMonitoringGauges,
  updateRequestGauge,
  type BylawMetrics,
} from "../metrics/index.js";
import { startMonitoring, type MonitoringLokiSettings, type ReportLabel } from "../../controllers/monitoring/index.js";
import { monitoringLoki } from "./monitoring-loki.js";
import { startCleanupController } from "../../controllers/cleanup/index.js";
import { namespaceFacts } from "../../controllers/namespace-facts.js";
import { startGenerateController } from "../../controllers/generate/generate-controller.js";
import { AdmissionReports, startReportsController } from "../../controllers/reports/index.js";
import type { AdmissionRecorder, ClusterFacts, PolicySnapshot, PolicySource } from "../types.js";
import type { AdmissionDeps } from "../admission/deps.js";
import { AdmissionPlans } from "../admission/plans.js";
import { YamlV3Writer } from "../admission/yaml-v3.js";
import { createWorkerPool } from "../worker/worker-pool.js";
import { DEADLINE_SHARE, timeoutProblems, type TimeoutGroups } from "../admission/webhook-groups.js";
import { ownWebhookProblems } from "../registration/own-webhook-problems.js";
import { operationProblems } from "../registration/operation-problems.js";
import { vetCleanup, vetPolicy } from "../registration/registration-check.js";
import { admissionBudgetProblems, type NamespaceBudget } from "../policy-source/namespace-budget.js";
import type { ExceptionScope } from "../policy-source/exception-scope.js";
import { RegistrationStates } from "../../controllers/registration/registration-states.js";
import { tenantProblems } from "../tenancy/tenant-problems.js";
import { startServers } from "./start-servers.js";
import { resolveTls, type ServeOutput, type TlsFiles } from "./tls-setup.js";
import { tuneHeapForServing } from "./heap-tuning.js";
import {
  jmespathOf,
  policyReadsRoles,
  setUpLiveContext,
  typesPort,
  withLiveReadiness,
  type LiveContext,
} from "./live-context-setup.js";
import { setUpHa, type HaSettings } from "./ha-setup.js";
import type { PermissionChecks } from "../registration/background-access.js";
import { openPolicySource, type ReportsIdentity, type ServedPolicySource } from "./policy-source-setup.js";
import { loadsPolicySet, noPolicySource } from "./no-policy-source.js";
import { watchCleanupExceptions } from "./cleanup-exceptions.js";
import { type Registration, type RegistrationPlan, setUpRegistration } from "./registration-setup.js";
import { describeBounds } from "./describe-bounds.js";
import { setUpEvents, type EventSettings, type ProcessEvents } from "./events-setup.js";
import type { ObjectRef } from "../../controllers/events/index.js";
import { componentAccount, type Component } from "./components.js";
import { componentElectors, type ComponentElectors } from "./component-electors.js";
import { backgroundRuns, markCleanupWhileDown, watchComponents } from "./presence-setup.js";
import type { ComponentPresence } from "../../controllers/leader-election/component-presence.js";
import type { Runs } from "../policy-source/unserved-parts.js";
import type { OnReconciled } from "../../controllers/reconcile-metrics.js";
import { scanResults } from "./scan-results.js";
import type { MetricsAuth, ResourceBounds, UiSettings } from "./types.js";
import type { RateLimit } from "../../kube/kube-client.js";

const BYLAW_VERSION = "0.1.0";

/** Everything `bylaw serve` runs with, checked by the CLI. */
interface ServeOptions {
  /** `--policies DIR`: policies from a folder; undefined: from the cluster. */
  readonly policies: string | undefined;
  readonly clusterFacts: string | undefined;
  readonly allowEmptyPolicies: boolean;
  /** `--cluster` or `--kubeconfig`: live context (and, without --policies, the policies) from the API server. */
  readonly live: boolean;
  /**
   * `--component` (repeatable; default admission): what this process runs (components.ts). Besides
   * admission, each needs policies from the cluster and elects its leader on its own Lease.
   */
  readonly components: readonly Component[];
  /** --cleanup-controller: the cleanup controller runs in the admission controller's process, on its Lease (one dev process). */
  readonly cleanupController: boolean;
  /** --reports-controller: background scans in the admission controller's process, on its Lease (one dev process). */
  readonly reportsController: boolean;
  /** --openreports-enabled: reports as openreports.io Reports (Kyverno's --openreportsEnabled). */
  readonly reportFormat: ReportFormat;
  readonly kubeconfig: string | undefined;
  readonly cacheMiB: number;
  readonly egressAllow: readonly string[];
  readonly imagePullSecrets: readonly string[];
  readonly serviceNamespace: string | undefined;
  readonly exceptions: {
    readonly scope: ExceptionScope;
    readonly namespaces: readonly string[] | undefined;
    readonly warning?: string;
  };
  readonly groups: TimeoutGroups;
  readonly logLevel: string;
  readonly bounds: ResourceBounds;
  readonly registration: RegistrationPlan | undefined;
  readonly metricsAuth: MetricsAuth | undefined;
  /** --ui-port: the report UI (docs/adr/0022-report-ui.md); undefined: off. */
  readonly ui?: UiSettings | undefined;
  readonly namespaceBudget: NamespaceBudget;
  readonly ha: HaSettings | undefined;
  /** --generate-controller-as: the generate controller runs, acting as this ServiceAccount of Bylaw's namespace (with policies from the cluster). */
  readonly generate: { readonly serviceAccount: string; readonly namespace: string } | undefined;
  /** --reports-service-account-name, --background-service-account-name: who those components run as (default: deploy/'s names in Bylaw's namespace). */
  readonly accounts: { readonly reports?: string; readonly background?: string };
  /** Bylaw's namespace (--service-namespace, POD_NAMESPACE or --leader-elect-namespace): where the background component keeps UpdateRequests. */
  readonly ownNamespace: string | undefined;
  readonly tls: TlsFiles;
  readonly host: string;
  readonly port: number;
  readonly metricsPort: number | undefined;
  readonly maxBodyBytes: number;
  readonly evalWorkers: number;
  readonly graceSeconds: number;
  /** `--background-scan-interval`: how often the reports controller scans every resource again. */
  readonly backgroundScanIntervalMs: number;
  /** `--background-scan-workers`: report writes in flight at most during a scan pass. */
  readonly backgroundScanWorkers: number;
  /**
   * `--client-rate-limit-*` (admission's reads, the generate and mutate-existing controller),
   * `--reports-rate-limit-*` (the reports controller) and `--events-rate-limit-*`: each client's budget.
   */
  readonly rateLimits: { readonly client: RateLimit; readonly reports: RateLimit; readonly events: RateLimit };
  /** `--event-component-prefix`, `--max-queued-events`, `--omit-events`: Events, with live context (events-setup.ts). */
  readonly events: EventSettings;
  /** `--monitoring-labels`, `--monitoring-max-series`: the monitoring component's series (ADR 0019). */
  readonly monitoring: {
    readonly labels: readonly ReportLabel[];
    readonly maxSeries: number;
    /** `--loki` and around it: where new results and Events go. */
    readonly loki?: MonitoringLokiSettings | undefined;
  };
}

/** What could not start: `code` 2 is a usage error (the CLI prints it with its usage hint), 1 a refusal printed as it is. */
type StartFailure = { readonly ok: false; readonly code: 1 | 2; readonly error: string };

/** The running process: `close()` shuts it down gracefully (servers drained within the grace period). */
interface RunningServe {
  close(): Promise<void>;
}

/**
 * A loop the server process runs beside the webhook, started once the servers answer and closed
 * first at shutdown. Each decides with its own reconcile function and writes only while this
 * replica leads (src/controllers/<name>/).
 */
interface Controller {
  start(): void;
  close(): void;
}

/**
 * The controllers this process runs, in start order: the one list where a controller is added
 * (cleanup and generate come here). Today: webhook registration, with --register; cleanup and
 * reports, with policies from the cluster.
 */
function controllersOf(parts: {
  readonly registration: Registration | undefined;
  readonly cleanup: Controller | undefined;
  readonly generate: Controller | undefined;
  readonly reports: Controller | undefined;
  readonly admissionReports: Controller | undefined;
  readonly monitoring: Controller | undefined;
}): Controller[] {
  return [
    ...(parts.registration !== undefined ? [parts.registration] : []),
    ...(parts.cleanup !== undefined ? [parts.cleanup] : []),
    ...(parts.generate !== undefined ? [parts.generate] : []),
    ...(parts.reports !== undefined ? [parts.reports] : []),
    ...(parts.admissionReports !== undefined ? [parts.admissionReports] : []),
    ...(parts.monitoring !== undefined ? [parts.monitoring] : []),
  ];
}

/**
 * Admission results in reports (controllers/reports/admission-reports.ts): every replica merges the
 * results of the reviews it allowed into their resources' PolicyReports (ADR 0018). It exists from
 * the first review; `start` is a no-op, `close` stops its timer.
 */
function admissionReportsWriter(
  live: LiveContext,
  format: ReportFormat,
  logger: Logger,
): Controller & { writer: AdmissionReports } {
  const writer = new AdmissionReports({
    client: live.client,
    format,
    onLog: (lvl, msg, fields) => logger[lvl](fields, `bylaw serve: ${msg}`),
  });
  return { writer, start: () => undefined, close: () => writer.close() };
}

/**
 * The generate controller (src/controllers/generate/), with --generate-controller-as: the webhook
 * stores generate work as UpdateRequests through `submit` from the first review, and the leader runs
 * them. It starts with the process (its informer must be there before the first review); `start` is
 * a no-op, `close` stops it. Undefined without the flag, or when its connection cannot be made (logged).
 */
function generateController(p: {
  readonly o: ServeOptions;
  readonly source: ServedPolicySource;
  /** The background component (its own identity and Lease), or --generate-controller-as in admission's process. */
  readonly as: { readonly namespace: string; readonly serviceAccount?: string } | undefined;
  readonly isLeader: (() => boolean) | undefined;
  readonly logger: Logger;
  readonly events: ProcessEvents | undefined;
  /** The background component runs elsewhere: this process only stores the UpdateRequests. */
  readonly storeOnly?: boolean;
  readonly onReconciled: OnReconciled;
  /** Where kyverno_updaterequest_total is exposed (where the loop runs, not where requests are only stored). */
  readonly registry: Registry;
}): (Controller & { submit: (work: Parameters<NonNullable<AdmissionDeps["onGenerateWork"]>>[0]) => void }) | undefined {
  const { o, as, isLeader, logger } = p;
  if (as === undefined) return undefined;
  const started = startGenerateController({
    ...(o.kubeconfig !== undefined ? { kubeconfig: o.kubeconfig } : {}),
    namespace: as.namespace,
    ...(as.serviceAccount !== undefined ? { serviceAccount: as.serviceAccount } : {}),
    rateLimit: o.rateLimits.client,
    instance: process.env["POD_NAME"] ?? "bylaw",
    policies: () => p.source.current().policies,
    exceptions: () => p.source.current().exceptions ?? [],
    ...(p.storeOnly === true ? { storeOnly: true } : {}),
    // Requests wait until the policies have loaded: before, every policy would be "not found" and its request Failed.
    isLeader: () => (isLeader?.() ?? true) && p.source.current().generation > 0,
    random: { next: Math.random },
    onLog: (lvl, msg, fields) => logger[lvl](fields, `bylaw serve: ${msg}`),
    ...(p.events !== undefined ? { onGenerated: generatedEvents(p.source, p.events) } : {}),
    onReconciled: p.onReconciled,
    // As Kyverno's background controller, which requeues its policies every --backgroundScanInterval.
    requeueMs: o.backgroundScanIntervalMs,
  });
  if (!started.ok) {
    logger.warn({}, `bylaw serve: ${started.error}`);
    return undefined;
  }
  if (p.storeOnly !== true) updateRequestGauge(p.registry, as.namespace, () => started.value.updateRequests());
  return { start: () => undefined, close: () => started.value.close(), submit: (w) => started.value.submit(w) };
}

/** kyverno-generate's PolicyApplied Events for what a request of the policy `key` (`ns/name` or `name`) made. */
function generatedEvents(
  source: ServedPolicySource,
  events: ProcessEvents,
): (key: string, generated: readonly ObjectRef[]) => void {
  return (key, generated) =>
    events.generated(
      source.current().policies.find((p) => (p.namespace !== "" ? `${p.namespace}/${p.name}` : p.name) === key),
      generated,
    );
}

/** The reports controller (background scans, one PolicyReport per resource): with policies from the cluster, writing on the leader. */
function reportsController(o: {
  readonly live: LiveContext;
  readonly engine: ReturnType<typeof createEngine>;
  readonly source: PolicySource;
  readonly intervalMs: number;
  readonly workers: number;
  readonly rateLimit: RateLimit;
  readonly format: ReportFormat;
  readonly logger: Logger;
  readonly isLeader: (() => boolean) | undefined;
  readonly onScanFailed: () => void;
  readonly metrics: BylawMetrics;
  readonly onReconciled: OnReconciled;
  readonly events: ProcessEvents | undefined;
}): Controller {
  const metrics = scanResults(o.metrics);
  return startedOnStart(() =>
    startReportsController({
      onScanFailed: o.onScanFailed,
      onScanned: (resource, responses, seconds) => {
        metrics(resource, responses, seconds);
        o.events?.scanned(resource, responses);
      },
      onReconciled: o.onReconciled,
      format: o.format,
      client: o.live.client.withRateLimit(o.rateLimit),
      engine: o.engine,
      types: o.live.types,
      policies: () => o.source.current(),
      namespace: (ns) => {
        const object = o.live.cluster.namespaceObject(ns);
        return object === undefined ? undefined : namespaceFacts(object);
      },
      intervalMs: o.intervalMs,
      writesInFlight: o.workers,
      onLog: (lvl, msg, fields) => o.logger[lvl](fields, `bylaw serve: ${msg}`),
      ...(o.isLeader !== undefined ? { isLeader: o.isLeader } : {}),
    }),
  );
}

/** A controller whose loops begin at `start` (once the servers answer) and stop at `close`. */
function startedOnStart(begin: () => { close(): void }): Controller {
  let running: { close(): void } | undefined;
  return {
    start: () => {
      running = begin();
    },
    close: () => running?.close(),
  };
}

/**
 * The cleanup controller (cleanup policies, the cleanup.kyverno.io/ttl label): with policies from the
 * cluster, writing on the leader. In a process that loads no policy set, with PolicyExceptions on
 * (`ownExceptions`), it watches the policies.kyverno.io PolicyExceptions itself (cleanup-exceptions.ts)
 * and acts only once they have listed.
 */
function cleanupController(o: {
  readonly live: LiveContext;
  readonly engine: ReturnType<typeof createEngine>;
  readonly registry: Registry;
  readonly logger: Logger;
  readonly isLeader: (() => boolean) | undefined;
  readonly source: PolicySource;
  readonly ownExceptions: ExceptionScope | undefined;
  readonly onReconciled: OnReconciled;
}): Controller {
  return startedOnStart(() => {
    const onLog = (lvl: "info" | "warn" | "error", msg: string, fields: Record<string, unknown>): void =>
      o.logger[lvl](fields, `bylaw serve: ${msg}`);
    const own =
      o.ownExceptions !== undefined
        ? watchCleanupExceptions({
            client: o.live.client,
            engine: o.engine,
            scope: o.ownExceptions,
            random: { next: () => Math.random() },
            onLog,
          })
        : undefined;
    const leader = o.isLeader;
    const isLeader = own !== undefined ? () => own.listed() && (leader?.() ?? true) : leader;
    const controller = startCleanupController({
      client: o.live.client,
      env: o.engine.env,
      compile: (doc) => o.engine.compile(doc),
      counters: cleanupCounters(o.registry),
      exceptions: own !== undefined ? () => own.current() : () => o.source.current().exceptions ?? [],
      onReconciled: o.onReconciled,
      onLog,
      ...(isLeader !== undefined ? { isLeader } : {}),
    });
    return {
      close: () => {
        controller.close();
        own?.close();
      },
    };
  });
}

/** A process that loads no policy set reads the PolicyExceptions a DeletingPolicy heeds itself, when they are on. */
function ownExceptionsOf(o: ServeOptions): ExceptionScope | undefined {
  return !loadsPolicySet(o.components) && o.exceptions.scope.enabled ? o.exceptions.scope : undefined;
}

/**
 * The monitoring component (controllers/monitoring, ADR 0019): with live context, every producer's
 * reports read by informers from the start and served on /metrics; no leader (it writes nothing).
 */
function monitoringComponent(
  o: ServeOptions,
  live: LiveContext | undefined,
  registry: Registry,
  logger: Logger,
): Controller | undefined {
  if (!o.components.includes("monitoring") || live === undefined) return undefined;
  const loki = o.monitoring.loki !== undefined ? monitoringLoki(o.monitoring.loki, registry, logger) : undefined;
  const monitoring = startMonitoring({
    client: live.client,
    labels: o.monitoring.labels,
    maxSeries: o.monitoring.maxSeries,
    ...(loki !== undefined ? { loki: loki.loki } : {}),
    onLog: (lvl, msg, fields) => logger[lvl](fields, `bylaw serve: ${msg}`),
  });
  registerMonitoringGauges(registry, () => monitoring.families());
  return {
    start: () => undefined,
    close: () => {
      monitoring.close();
      loki?.close();
    },
  };
}

/** Generate rules run in this process: the background component, or --generate-controller-as. */
function generateRuns(o: ServeOptions): boolean {
  return o.generate !== undefined || o.components.includes("background");
}

/**
 * The components the admission controller of this process leaves to others and watches the Leases
 * of (presence-setup.ts): background unless generate runs here, cleanup unless it runs here. Only
 * for the admission component with policies from the cluster and Bylaw's namespace known.
 */
function componentsElsewhere(o: ServeOptions, live: LiveContext | undefined): Component[] {
  if (live === undefined || o.policies !== undefined || !o.components.includes("admission")) return [];
  if ((o.ha?.namespace ?? o.ownNamespace) === undefined) return [];
  return [
    ...(generateRuns(o) ? [] : (["background"] as const)),
    ...(o.components.includes("cleanup") || o.cleanupController ? [] : (["cleanup"] as const)),
    ...(reportsHere(o) ? [] : (["reports"] as const)),
  ];
}

function reportsHere(o: ServeOptions): boolean {
  return o.components.includes("reports") || o.reportsController;
}

/**
 * Who runs background scans, for RBACPermissionsGranted: this process, or the reports component's
 * ServiceAccount in Bylaw's namespace once its Lease shows it was started; undefined: nobody watched.
 */
function reportsIdentity(
  o: ServeOptions,
  elsewhere: readonly Component[],
  presence: ComponentPresence<Component> | undefined,
): ReportsIdentity | undefined {
  if (reportsHere(o)) return { here: true };
  if (presence === undefined || !elsewhere.includes("reports") || o.ownNamespace === undefined) return undefined;
  return {
    user: o.accounts.reports ?? `system:serviceaccount:${o.ownNamespace}:${componentAccount("reports")}`,
    started: () => presence.of("reports").state !== "absent",
  };
}

/** What runs beyond admission now: generate rules in this process, or while the background component is up. */
function runsOf(o: ServeOptions, presence: ComponentPresence<Component> | undefined): () => Runs {
  return () =>
    generateRuns(o) ? { generate: true } : presence !== undefined ? backgroundRuns(presence.of("background")) : {};
}

interface ComponentControllers {
  readonly generate: ReturnType<typeof generateController>;
  readonly cleanup: Controller | undefined;
  readonly reports: Controller | undefined;
}

/**
 * The controllers of the components other than admission (ADR 0018), each writing only while this
 * replica leads its component's Lease: background = generate (as its own ServiceAccount; with
 * --generate-controller-as, in admission's process, impersonating it), reports = background scans,
 * cleanup = cleanup policies and the TTL label. All need policies from the cluster.
 */
function componentControllers(p: {
  readonly o: ServeOptions;
  readonly live: LiveContext | undefined;
  readonly engine: ReturnType<typeof createEngine>;
  readonly source: ServedPolicySource;
  readonly registry: Registry;
  readonly metrics: BylawMetrics;
  readonly logger: Logger;
  readonly electors: ComponentElectors;
  readonly admissionLeader: (() => boolean) | undefined;
  readonly events: ProcessEvents | undefined;
  /** The background component runs in other processes (its Lease watched): this one stores UpdateRequests for it. */
  readonly handsOff: boolean;
}): ComponentControllers {
  const { o, live, engine, source, registry, logger, electors } = p;
  if (live === undefined || o.policies !== undefined)
    return { generate: undefined, cleanup: undefined, reports: undefined };
  const runs = (c: Component): boolean => o.components.includes(c);
  const onReconciled = controllerCounters(registry);
  // The background component: generate (mutate-existing, src/controllers/mutate-existing/, joins it here).
  const background = runs("background") && o.ownNamespace !== undefined;
  const handOff = p.handsOff && o.ownNamespace !== undefined && o.generate === undefined;
  const generate = generateController({
    o,
    source,
    as: background || handOff ? { namespace: o.ownNamespace } : o.generate,
    isLeader: background ? electors.isLeader("background") : p.admissionLeader,
    logger,
    events: p.events,
    storeOnly: handOff,
    onReconciled,
    registry,
  });
  // --cleanup-controller, --reports-controller: beside the webhook, on the admission controller's Lease.
  const leaderOf = (c: Component, beside: boolean): (() => boolean) | undefined =>
    runs(c) ? electors.isLeader(c) : beside ? p.admissionLeader : undefined;
  const common = { live, engine, logger, onReconciled, registry };
  const cleanup =
    runs("cleanup") || o.cleanupController
      ? cleanupController({
          ...common,
          source,
          ownExceptions: ownExceptionsOf(o),
          isLeader: leaderOf("cleanup", o.cleanupController),
        })
      : undefined;
  const reports =
    runs("reports") || o.reportsController
      ? reportsController({
          ...common,
          source,
          intervalMs: o.backgroundScanIntervalMs,
          workers: o.backgroundScanWorkers,
          rateLimit: o.rateLimits.reports,
          format: o.reportFormat,
          isLeader: leaderOf("reports", o.reportsController),
          onScanFailed: backgroundScanFailures(registry),
          metrics: p.metrics,
          events: p.events,
        })
      : undefined;
  return { generate, cleanup, reports };
}

export async function startServe(
  o: ServeOptions,
  out: ServeOutput,
): Promise<{ ok: true; value: RunningServe } | StartFailure> {
  const usage = (error: string): StartFailure => ({ ok: false, code: 2, error });
  const logger = createLogger({ level: o.logLevel });
  const admission = o.components.includes("admission");
  // --leader-elect, --tls-secret: the admission controller's Lease and the shared certificate Secret (ha-setup.ts).
  const ha = await setUpHa(admission ? o.ha : undefined, (lvl, msg, fields) =>
    logger[lvl](fields, `bylaw serve: ${msg}`),
  );
  if (!ha.ok) return usage(ha.error);
  // The other components', each on its own Lease.
  const others = await componentElectors({
    components: o.components,
    ha: o.ha,
    onLog: (lvl, msg, fields) => logger[lvl](fields, `bylaw serve: ${msg}`),
  });
  if (!others.ok) {
    await ha.value.close();
    return usage(others.error);
  }
  // With --leader-elect only the leader writes shared objects (policy status); without it, every replica does.
  const elector = ha.value.elector;
  const leadership =
    elector !== undefined ? { isLeader: () => elector.isLeader(), onLeaderChange: elector.onChange.bind(elector) } : {};
  const tls = ha.value.tls !== undefined ? { ok: true as const, value: ha.value.tls } : await resolveTls(o.tls, out);
  if (!tls.ok) {
    await ha.value.close();
    return usage(tls.error);
  }

  tuneHeapForServing();
  let live: LiveContext | undefined;
  if (o.live) {
    const set = setUpLiveContext({
      ...(o.kubeconfig !== undefined ? { kubeconfig: o.kubeconfig } : {}),
      cacheMiB: o.cacheMiB,
      rateLimit: o.rateLimits.client,
      ...(o.bounds.memoryLimitBytes !== undefined ? { memoryLimitBytes: o.bounds.memoryLimitBytes } : {}),
      egressAllow: o.egressAllow,
      imagePullSecrets: o.imagePullSecrets,
      ...(o.serviceNamespace !== undefined ? { ownNamespace: o.serviceNamespace } : {}),
      compile: () => jmespathOf(engine),
      ...(elector !== undefined ? { isLeader: () => elector.isLeader() } : {}),
      onLog: (lvl, msg, fields) => logger[lvl](fields, `bylaw serve: ${msg}`),
    });
    if (!set.ok) {
      await ha.value.close();
      return usage(set.error);
    }
    live = set.value;
    out.err(`bylaw serve: live context from ${live.origin}`);
  }
  // The components other processes run (their Leases): what of a policy runs, for its Ready condition.
  const elsewhere = componentsElsewhere(o, live);
  const presence =
    live !== undefined
      ? await watchComponents({
          client: live.client,
          namespace: o.ha?.namespace ?? o.ownNamespace ?? "",
          elsewhere,
          onLog: (lvl, msg, fields) => logger[lvl](fields, `bylaw serve: ${msg}`),
        })
      : undefined;
  const runs = runsOf(o, presence);
  const reportsAs = reportsIdentity(o, elsewhere, presence);
  // The evaluation workers build their engines from the same ports (server/worker/evaluation-worker.ts).
  const ports = servePorts({ live: live?.context, typedKinds: live?.types.kinds });
  const engine = createEngine(ports);
  if (o.exceptions.warning !== undefined) logger.warn({}, `bylaw serve: ${o.exceptions.warning}`);
  const checkPolicy = policyCheck(o.groups);
  // With --register, Ready means "the API server sends us this policy's requests" (registration-states.ts).
  const registered = o.registration !== undefined ? new RegistrationStates() : undefined;
  // Registration's checks of the background controller's grants, once it is set up (below), for policies' Ready.
  const backgroundChecks: { current?: PermissionChecks } = {};
  // A cleanup- or monitoring-only process loads no policy set (its ServiceAccount may not list one).
  const noPolicies = o.policies === undefined && live !== undefined && !loadsPolicySet(o.components);
  const source = noPolicies
    ? noPolicySource(Date.now)
    : await openPolicySource({
        engine,
        checkPolicy,
        onLog: (lvl, msg, fields) => logger[lvl](fields, msg),
        ...(o.policies !== undefined
          ? {
              folder: {
                dir: o.policies,
                allowEmpty: o.allowEmptyPolicies,
                ...(o.clusterFacts !== undefined ? { clusterFacts: o.clusterFacts } : {}),
              },
            }
          : live !== undefined
            ? {
                cluster: {
                  live,
                  cacheMiB: o.cacheMiB,
                  exceptions: o.exceptions.scope,
                  runs,
                  ...(presence !== undefined ? { onRunsChange: (l: () => void) => presence.onChange(l) } : {}),
                  ...(registered !== undefined ? { registration: registered } : {}),
                  namespaceBudget: o.namespaceBudget,
                  ...(reportsAs !== undefined ? { reports: reportsAs } : {}),
                  background: () => backgroundChecks.current,
                  // Policy status is the admission controller's to write (its leader's, with --leader-elect).
                  ...(admission ? leadership : { isLeader: () => false }),
                },
              }
            : {}),
      });
  const registry = new Registry();
  const metrics = createMetrics({
    registry,
    version: BYLAW_VERSION,
    maxSeriesBytes: o.bounds.metricsMaxBytes,
    maxNamespaces: o.bounds.metricsMaxNamespaces,
    canLoadContext: (kind) => ports.context.canLoad(kind),
    generateRuns: () => live !== undefined && runs().generate === true,
  });
  let registration: Registration | undefined;
  if (o.registration !== undefined && admission) {
    const set = setUpRegistration({
      plan: o.registration,
      ...(o.accounts.background !== undefined ? { backgroundUser: o.accounts.background } : {}),
      source,
      groups: o.groups,
      tls: tls.value,
      ...leadership,
      ...(registered !== undefined ? { states: registered } : {}),
      onLog: (lvl, msg, fields) => logger[lvl](fields, msg),
    });
    if (!set.ok) {
      await source.close();
      return usage(set.error);
    }
    registration = set.value;
    backgroundChecks.current = registration.policyChecks;
    // --kyverno-webhook-names: never take over a configuration Kyverno (or anyone else) owns.
    const foreign = await registration.foreignConfigurations();
    if (foreign !== undefined) {
      registration.close();
      await source.close();
      live?.close();
      await ha.value.close();
      return { ok: false, code: 1, error: `bylaw serve: ${foreign}` };
    }
  }
  const unbind = bindPolicySource(metrics, source);
  ha.value.bindMetrics(registry);
  const unfollow = live?.follow(source);
  const now = (): number => performance.now() / 1000;
  // With live context the workers' engines read it through a bridge to this thread's caches
  // (server/worker/context-bridge.ts), so reviews that leave their batch finish off this thread there too.
  const runner = workerPool(o, now, live, logger);
  // Each snapshot is compiled in the workers as soon as it is loaded (only what changed), not by the
  // first review that leaves its batch: with the policy library loaded that compile took seconds.
  const unwarm = runner !== undefined ? warmWorkers(runner, source) : undefined;
  // Events (kyverno-admission, kyverno-generate, …) go to the API server through one bounded queue.
  const events =
    live !== undefined
      ? setUpEvents({ client: live.client.withRateLimit(o.rateLimits.events), settings: o.events, registry, logger })
      : undefined;
  const { generate, cleanup, reports } = componentControllers({
    o,
    live,
    engine,
    source,
    registry,
    metrics,
    logger,
    events,
    electors: others.value,
    admissionLeader: elector && (() => elector.isLeader()),
    handsOff: elsewhere.includes("background"),
  });
  // The cleanup component elsewhere and gone: its policies are set not Ready, by the admission leader.
  const unmark =
    presence !== undefined && live !== undefined && elsewhere.includes("cleanup")
      ? markCleanupWhileDown({
          presence,
          client: live.client,
          isLeader: () => elector?.isLeader() ?? true,
          onLog: (lvl, msg, fields) => logger[lvl](fields, `bylaw serve: ${msg}`),
        })
      : undefined;
  const admissionReports =
    reports !== undefined && live !== undefined ? admissionReportsWriter(live, o.reportFormat, logger) : undefined;
  const monitoring = monitoringComponent(o, live, registry, logger);
  /** The policy webhook's checks against the API server end before the webhook's own timeout. */
  const vetDeadlineMs = o.groups.defaultSeconds * DEADLINE_SHARE * 1000;
  const deps: AdmissionDeps = {
    engine,
    policies: () => loadedPolicies(source),
    cluster: clusterFacts(source, live),
    recorder: admissionRecorder(metrics, logger),
    now,
    ...(runner !== undefined ? { runner } : {}),
    ...(live !== undefined ? { calls: live.reviewCalls, types: typesPort(live.types) } : {}),
    deadlineSeconds: o.groups.defaultSeconds * DEADLINE_SHARE,
    plans: new AdmissionPlans(),
    // From the cluster, a new tenant policy its namespace has no room for is refused at kubectl apply.
    vetPolicy: vetPolicy({
      check:
        live === undefined
          ? checkPolicy
          : (p) => [...checkPolicy(p), ...admissionBudgetProblems(p, source.current().policies, o.namespaceBudget)],
      ...(registration !== undefined ? { registrar: registration.registrar, cluster: registration.policyChecks } : {}),
      deadlineMs: vetDeadlineMs,
    }),
    ...(registration !== undefined
      ? {
          vetCleanup: vetCleanup({ cluster: registration.policyChecks, deadlineMs: vetDeadlineMs }),
        }
      : {}),
    denialYaml: new YamlV3Writer(),
    ...(cleanup !== undefined ? { cleanupController: true } : {}),
    ...(presence !== undefined && elsewhere.includes("cleanup")
      ? { cleanupController: () => presence.of("cleanup").state !== "absent" }
      : {}),
    runs,
    ...(generate !== undefined ? { onGenerateWork: generateWork(generate, elsewhere, presence) } : {}),
    ...(events !== undefined ? { onReviewed: events.onReviewed } : {}),
    ...(admissionReports !== undefined
      ? { onAdmissionResults: (resource, responses) => admissionReports.writer.submit(resource, responses) }
      : {}),
    ...(o.exceptions.namespaces !== undefined ? { exceptionNamespaces: o.exceptions.namespaces } : {}),
    // What the policy webhook warns about a PolicyException being created: the scope its cluster source honours.
    ...(o.policies !== undefined
      ? { clusterExceptions: "folder" as const }
      : live !== undefined
        ? { clusterExceptions: o.exceptions.scope }
        : {}),
  };
  const servers = await startServers({
    deps,
    groups: o.groups,
    source: ha.value.withReadiness(withLiveReadiness(source, live)),
    tls: tls.value,
    host: o.host,
    port: o.port,
    metricsPort: o.metricsPort,
    maxBodyBytes: o.maxBodyBytes,
    metrics,
    registry,
    logger,
    bounds: o.bounds,
    metricsAuth: o.metricsAuth,
    ui: o.ui,
  });
  logger.info(
    {
      port: servers.port,
      metricsPort: servers.metricsPort,
      ...(servers.uiPort !== undefined ? { uiPort: servers.uiPort } : {}),
      policies: source.current().policies.length,
      ...describeBounds(o.bounds),
    },
    "bylaw serve: listening",
  );
  out.err(
    `bylaw serve: listening on https://${o.host}:${servers.port} (metrics on ${servers.metricsPort === undefined ? "-" : `:${servers.metricsPort}`}), ${source.current().policies.length} policies loaded`,
  );
  // Started only once the server answers: the API server calls the webhooks as soon as they exist.
  const controllers = controllersOf({
    registration,
    cleanup,
    generate,
    reports,
    admissionReports,
    monitoring,
  });
  for (const c of controllers) c.start();

  return {
    ok: true,
    value: {
      close: async () => {
        logger.info({}, "bylaw serve: shutting down");
        // The webhook configurations stay registered: a Fail webhook keeps refusing while Bylaw is down.
        for (const c of [...controllers].reverse()) c.close();
        unmark?.();
        presence?.stop();
        await others.value.close();
        await ha.value.close();
        await servers.close(o.graceSeconds * 1000);
        unwarm?.();
        await runner?.close();
        events?.close();
        unbind();
        unfollow?.();
        live?.close();
        await source.close();
        tls.value.close();
      },
    },
  };
}

/**
 * Where a review's generate work goes: to this process's generate controller; with the background
 * component elsewhere, stored as UpdateRequests once that component has been started (its Lease
 * exists; while it is down they wait for it, and the policy is not Ready), never before.
 */
function generateWork(
  generate: { submit: NonNullable<AdmissionDeps["onGenerateWork"]> },
  elsewhere: readonly Component[],
  presence: ComponentPresence<Component> | undefined,
): NonNullable<AdmissionDeps["onGenerateWork"]> {
  if (!elsewhere.includes("background") || presence === undefined) return (work) => generate.submit(work);
  return (work) => {
    if (presence.of("background").state !== "absent") generate.submit(work);
  };
}

/**
 * The checks a policy passes before it is served, beyond compiling: tenant rules visible before
 * substitution make a policy invalid (the rest is checked at run time); with --register, a policy
 * whose own webhook the API server would refuse (and every other policy's with it) is refused instead.
 */
function policyCheck(groups: TimeoutGroups): (policy: CompiledPolicy) => PolicyProblem[] {
  return (policy) => [
    ...timeoutProblems(policy, groups),
    ...ownWebhookProblems(policy, groups),
    ...operationProblems(policy),
    ...tenantProblems(policy.document as unknown as JsonValue, policy.namespace),
  ];
}

/** The evaluation workers (`--eval-workers`, 0: evaluate on this thread). */
function workerPool(
  o: ServeOptions,
  now: () => number,
  live: LiveContext | undefined,
  logger: Logger,
): ReturnType<typeof createWorkerPool> | undefined {
  const workers = Math.floor(o.evalWorkers);
  const limit = o.bounds.memoryLimitBytes;
  if (workers <= 0) return undefined;
  return createWorkerPool({
    size: workers,
    now,
    // A tenant's review that builds huge values ends its worker, not the process (issue 32 §6).
    ...(limit !== undefined ? { heapMiB: Math.max(32, Math.floor(limit / 4 / 1024 / 1024)) } : {}),
    ...(live !== undefined ? { context: live.context, types: live.types } : {}),
    onEvent: (event, detail) => logger.warn(detail, `bylaw serve: evaluation ${event}`),
  });
}

/** Sends the current snapshot, then each one loaded, to the evaluation workers; answers the unsubscribe. */
function warmWorkers(
  runner: { warm(snapshot: PolicySnapshot): void },
  source: Pick<ServedPolicySource, "current" | "onChange">,
): () => void {
  const current = source.current();
  if (current.generation > 0) runner.warm(current);
  return source.onChange((event) => {
    if (event.kind === "loaded") runner.warm(event.snapshot);
  });
}

/** Each review's outcome goes to the metrics and the log; its rule results to the metrics. */
function admissionRecorder(metrics: BylawMetrics, logger: Logger): AdmissionRecorder {
  return {
    admission: (outcome, results) => {
      metrics.admission(outcome);
      logAdmission(logger, outcome, undefined, results);
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
      ? {
          needsRoles: (policies: readonly CompiledPolicy[]) => policies.some(policyReadsRoles),
          namespaceObject: (ns: string) => live.cluster.namespaceObject(ns),
        }
      : {}),
  };
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
