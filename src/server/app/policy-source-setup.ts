/**
 * Where `bylaw serve` takes its policies from: a watched folder (`--policies DIR`), or, with
 * `--cluster`/`--kubeconfig` and no `--policies`, the cluster's ClusterPolicy, Policy,
 * PolicyException and policies.kyverno.io policy objects (server/policy-source/cluster-policy-source.ts), whose status Bylaw then
 * writes (controllers/policy-status) while it is the leader.
 */
import type { CompiledPolicy, Engine, PolicyProblem } from "../../engine/index.js";
import { PolicyInformers } from "../../kube/policy-informers.js";
import { reportingAccess } from "../../controllers/policy-status/reporting-access.js";
import { selfAccess } from "../../kube/self-access.js";
import { subjectAccess } from "../../kube/access-review.js";
import { PolicyStatusWriter, type RegistrationView } from "../../controllers/policy-status/policy-status-writer.js";
import { clusterPolicySource } from "../policy-source/cluster-policy-source.js";
import type { NamespaceBudget } from "../policy-source/namespace-budget.js";
import type { ExceptionScope } from "../policy-source/exception-scope.js";
import { directoryPolicySource, type LogFn } from "../policy-source/index.js";
import type { Readiness } from "../policy-source/types.js";
import type { Runs } from "../policy-source/unserved-parts.js";
import type { ClusterFacts, PolicySource } from "../types.js";
import type { LiveContext } from "./live-context-setup.js";
import type { PermissionChecks } from "../registration/background-access.js";
import { backgroundReadiness } from "./background-readiness.js";

/** Whose reads RBACPermissionsGranted checks (PolicySourceSetup's `cluster.reports`). */
export type ReportsIdentity = { readonly here: true } | { readonly user: string; readonly started: () => boolean };

/** A policy source as `serve` uses it: the policies, the facts a review does not carry, readiness. */
export type ServedPolicySource = PolicySource & { cluster(): ClusterFacts; readiness(): Readiness };

interface PolicySourceSetup {
  readonly engine: Engine;
  readonly checkPolicy: (policy: CompiledPolicy) => readonly PolicyProblem[];
  readonly onLog: LogFn;
  readonly folder?: { readonly dir: string; readonly clusterFacts?: string; readonly allowEmpty: boolean };
  readonly cluster?: {
    readonly live: LiveContext;
    readonly cacheMiB: number;
    readonly exceptions: ExceptionScope;
    /** What runs beyond admission (generate rules: in this process, or the background component's Lease held), read at each rebuild. */
    readonly runs?: () => Runs;
    /** Called when `runs` may answer otherwise (a component came or went): the policies are rebuilt, their status written. */
    readonly onRunsChange?: (listener: () => void) => () => void;
    /** What one namespace's policies may take (policy-budget-flags.ts). */
    readonly namespaceBudget?: NamespaceBudget;
    /** Only the leader writes status (--leader-elect); without it, every replica writes. */
    readonly isLeader?: () => boolean;
    /** Changes of leadership (the elector's onChange): a new leader writes every status at once. */
    readonly onLeaderChange?: (listener: (leader: boolean) => void) => () => void;
    /** How often every policy's status is compared again (a lost write, a new leader). Default 60 s. */
    readonly resyncMs?: number;
    /** With --register: Ready means registered; statuses are compared again after each registration sync. */
    readonly registration?: RegistrationView & { onChange(listener: () => void): () => void };
    /**
     * Who runs background scans, for a policies.kyverno.io policy's RBACPermissionsGranted: this
     * process (`here`, its own identity), or the reports component elsewhere (`user`, asked with a
     * SubjectAccessReview once `started`). Undefined: nobody; the condition is not written.
     */
    readonly reports?: ReportsIdentity;
    /** The background controller's permission checks (registration's), for the Ready of policies with existing-trigger rules. */
    readonly background?: () => PermissionChecks | undefined;
  };
}

export async function openPolicySource(o: PolicySourceSetup): Promise<ServedPolicySource> {
  if (o.folder !== undefined) {
    return directoryPolicySource({
      dir: o.folder.dir,
      engine: o.engine,
      ...(o.folder.clusterFacts !== undefined ? { clusterFile: o.folder.clusterFacts } : {}),
      allowEmpty: o.folder.allowEmpty,
      checkPolicy: o.checkPolicy,
      onLog: o.onLog,
    });
  }
  if (o.cluster === undefined) throw new Error("openPolicySource: neither a folder nor a cluster");
  const { live, exceptions } = o.cluster;
  const kubeLog = (level: "info" | "warn" | "debug", message: string, fields: Record<string, unknown>): void =>
    o.onLog(level, `policies from the cluster: ${message}`, fields);
  const store = new PolicyInformers({
    client: live.client,
    budgetBytes: o.cluster.cacheMiB * 1024 * 1024,
    random: { next: Math.random },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms).unref()),
    exceptionsRequired: exceptions.enabled,
    onLog: kubeLog,
  });
  const writer = statusWriter(o.cluster, kubeLog);
  const source = clusterPolicySource({
    store,
    engine: o.engine,
    exceptions,
    checkPolicy: o.checkPolicy,
    ...(o.cluster.runs !== undefined ? { runs: o.cluster.runs } : {}),
    onOutcomes: (outcomes) => writer.reconcile(outcomes),
    onLog: o.onLog,
    ...(o.cluster.namespaceBudget !== undefined ? { namespaceBudget: o.cluster.namespaceBudget } : {}),
  });
  const resync = setInterval(() => writer.reconcile(source.outcomes()), o.cluster.resyncMs ?? 60_000);
  resync.unref();
  const unfollow =
    o.cluster.onLeaderChange && writer.followLeadership(o.cluster.onLeaderChange, () => source.outcomes());
  const unfollowChanges = followChanges(o.cluster, () => writer.reconcile(source.outcomes()), source);
  o.onLog("info", "policies from the cluster: watching", {
    resources: store.watched,
    exceptions: exceptions.enabled ? exceptions.namespaces : "off",
  });
  return {
    ...source,
    close: async () => {
      clearInterval(resync);
      unfollow?.();
      unfollowChanges();
      writer.close();
      await source.close();
    },
  };
}

/** Statuses compared again after each registration sync; the set rebuilt when what runs changes. Returns the unsubscribe. */
function followChanges(
  cluster: NonNullable<PolicySourceSetup["cluster"]>,
  reconcile: () => void,
  source: { rebuild(): void },
): () => void {
  const unregistered = cluster.registration?.onChange(reconcile);
  const unrun = cluster.onRunsChange?.(() => source.rebuild());
  return () => {
    unregistered?.();
    unrun?.();
  };
}

/** The policy status writer: on the leader, with registration's word, and RBACPermissionsGranted checked for whoever runs background scans. */
function statusWriter(
  c: NonNullable<PolicySourceSetup["cluster"]>,
  onLog: (level: "info" | "warn" | "debug", message: string, fields: Record<string, unknown>) => void,
): PolicyStatusWriter {
  const client = c.live.client;
  return new PolicyStatusWriter({
    client,
    now: Date.now,
    onLog,
    ...(c.isLeader !== undefined ? { isLeader: c.isLeader } : {}),
    ...(c.registration !== undefined ? { registration: c.registration } : {}),
    ...(c.reports !== undefined ? { reporting: reportingOf(client, c.reports) } : {}),
    ...(c.background !== undefined ? { background: backgroundReadiness({ checks: c.background, now: Date.now }) } : {}),
  });
}

/** RBACPermissionsGranted's checks: this process's own access, or the reports component's ServiceAccount's. */
function reportingOf(client: LiveContext["client"], reports: ReportsIdentity): ReturnType<typeof reportingAccess> {
  if ("here" in reports)
    return reportingAccess({ check: (verb, gvr) => selfAccess(client, { verb, ...gvr }), now: Date.now });
  return reportingAccess({
    // As Kyverno's auth checker asks for its reports controller: the user name, every namespace.
    check: (verb, gvr) => subjectAccess(client, { user: reports.user, resourceAttributes: { verb, ...gvr } }),
    now: Date.now,
    started: reports.started,
  });
}
