/**
 * Policies from the cluster for `bylaw serve --cluster` (without `--policies`): ClusterPolicy,
 * Policy, PolicyException and the policies.kyverno.io policy objects from watches
 * (kube/policy-informers.ts), as a PolicySource. The policies.kyverno.io kinds compile as in folder
 * mode (cel-policy-compile.ts); one Bylaw serves without evaluating it (MutatingPolicy,
 * ImageValidatingPolicy) is logged once and its status is not Ready, with the reason.
 *
 * - Each policy compiles on its own (cluster-object-compiler.ts): an invalid one is not served, the
 *   others are, and its problems are kept (`outcomes()`, `lastError()`, the Ready condition the
 *   status writer derives from them). The same server checks as folder mode apply (`checkPolicy`).
 * - A change makes a new snapshot (generation + 1) only when the served policies or exceptions
 *   changed; unchanged objects are not compiled again. Changes arriving together (a list, a burst
 *   of events) are taken as one, after `debounceMs`.
 * - Until every required watch has listed, nothing is served (generation 0: reviews are answered
 *   per failurePolicy) and `readiness()` says why. An empty cluster is a valid, empty set.
 * - PolicyExceptions, of both groups (kyverno.io/v2 and policies.kyverno.io), are honoured only
 *   within `exceptions` (exception-scope.ts); each one ignored is logged once, with the reason, and
 *   never applied. An invalid one is not honoured, logged once and reported as a problem.
 */
import type { Runs } from "./unserved-parts.js";
import {
  type AnyCompiledException,
  type CompiledPolicy,
  type Engine,
  type JsonValue,
  kindDescriptor,
  type PolicyProblem,
} from "../../engine/index.js";
import type { PolicyObjectStore } from "../../kube/policy-informers.js";
import { CEL_GROUP, CEL_POLICY_KINDS } from "../../kube/cel-policy-kinds.js";
import type { PolicyOutcome, PolicyOutcomeKind } from "../../controllers/policy-status/policy-status.js";
import type { KubeObject } from "../../kube/types.js";
import type { ClusterFacts, PolicyLoadError, PolicySnapshot, PolicySourceEvent } from "../types.js";
import {
  ClusterObjectCompiler,
  exceptionKeyKind,
  exceptionLabel,
  type ExceptionGroup,
  type PolicyKind,
  uidOf,
} from "./cluster-object-compiler.js";
import { clusterFactsView, EMPTY_FACTS } from "./cluster-facts.js";
import { exceptionIgnoredBecause, type ExceptionScope } from "./exception-scope.js";
import type { LogFn, Readiness, SourceProblem } from "./types.js";
import type { PolicySource } from "../types.js";
import { notifyListeners } from "./notify-listeners.js";
import { DEFAULT_NAMESPACE_BUDGET, overNamespaceBudget, type NamespaceBudget } from "./namespace-budget.js";

export interface ClusterPolicySourceOptions {
  readonly store: PolicyObjectStore;
  readonly engine: Engine;
  readonly exceptions: ExceptionScope;
  readonly checkPolicy?: (policy: CompiledPolicy) => readonly PolicyProblem[];
  /** What runs beyond admission (the generate controller), read at each rebuild: its rules are served, not "not Ready". */
  readonly runs?: () => Runs;
  /** Called after each rebuild with every policy's outcome (for the status writer). */
  readonly onOutcomes?: (outcomes: readonly PolicyOutcome[]) => void;
  readonly debounceMs?: number;
  readonly now?: () => number;
  readonly onLog?: LogFn;
  /** What one namespace's policies may take (default DEFAULT_NAMESPACE_BUDGET); past it a policy is not served. */
  readonly namespaceBudget?: NamespaceBudget;
}

interface ClusterPolicySource extends PolicySource {
  /** No facts file in this mode: namespace labels and roles come from the live context. */
  cluster(): ClusterFacts;
  readiness(): Readiness;
  /** Each ClusterPolicy and Policy of the last rebuild, served or with its problems. */
  outcomes(): readonly PolicyOutcome[];
  /** Rebuild now (tests; a periodic status resync). */
  rebuild(): void;
}

const MAX_PROBLEMS_IN_MESSAGE = 10;

export function clusterPolicySource(options: ClusterPolicySourceOptions): ClusterPolicySource {
  const { store } = options;
  const now = options.now ?? Date.now;
  const log = options.onLog ?? (() => undefined);
  const compiler = new ClusterObjectCompiler(options.engine, options.checkPolicy, options.runs);
  const listeners = new Set<(event: PolicySourceEvent) => void>();
  const facts = clusterFactsView(EMPTY_FACTS);
  const ignoredLogged = new Map<string, string>();
  const problemsLogged = new Map<string, string>();
  const budgetLogged = new Map<string, string>();
  let snapshot: PolicySnapshot = { policies: [], generation: 0, loadedAt: now() };
  let outcomes: readonly PolicyOutcome[] = [];
  let error: PolicyLoadError | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const emit = (event: PolicySourceEvent): void => notifyListeners(listeners, event, log);

  const rebuild = (): void => {
    timer = undefined;
    if (closed || !store.readiness().ok) return;
    const seen = new Set<string>();
    const problems: SourceProblem[] = [];
    const served: CompiledPolicy[] = [];
    const next: PolicyOutcome[] = [];
    const over = overNamespaceBudget(namespacedPolicies(store), options.namespaceBudget ?? DEFAULT_NAMESPACE_BUDGET);
    /** Not compiled: past its namespace's budget (namespace-budget.ts). */
    const refuse = (obj: KubeObject, kind: PolicyOutcomeKind, label: string, reason: string): void => {
      problems.push({ file: label, problem: reason });
      logOnce(budgetLogged, uidOf(obj, kind), reason, () =>
        log("warn", "policy not served: its namespace is over its budget", { policy: label, reason }),
      );
      budgetSeen.add(uidOf(obj, kind));
      next.push(outcomeOf(obj, kind, undefined, [reason]));
    };
    const budgetSeen = new Set<string>();
    const addPolicies = (objects: readonly KubeObject[], kind: PolicyKind): void => {
      for (const obj of [...objects].sort(byName)) {
        const md = obj.metadata ?? {};
        const namespaced = kindDescriptor(kind)?.scope === "namespaced";
        const label = `${kind} ${namespaced ? `${md.namespace ?? ""}/` : ""}${md.name ?? ""}`;
        const overBudget = over.get(obj);
        if (overBudget !== undefined) {
          refuse(obj, kind, label, overBudget);
          continue;
        }
        const c = compiler.policy(obj, kind, seen);
        if (c.value !== undefined) {
          served.push(c.value);
          if (c.notEvaluated !== undefined)
            logOnce(problemsLogged, uidOf(obj, kind), `${c.fingerprint}\u001f${c.notEvaluated}`, () =>
              log("warn", "policy served in part: not Ready", { policy: label, reason: c.notEvaluated }),
            );
        } else {
          for (const p of c.problems) problems.push({ file: label, problem: p });
          logOnce(problemsLogged, uidOf(obj, kind), c.fingerprint, () =>
            log("error", "policy not served", { policy: label, problems: c.problems }),
          );
        }
        next.push(outcomeOf(obj, kind, c.value, c.problems, c.notEvaluated));
      }
    };
    // The cluster's own policies first, then the namespaced ones, each namespace within its budget.
    const addCelPolicies = (namespaced: boolean): void => {
      for (const info of CEL_POLICY_KINDS) {
        // A DeletingPolicy is the cleanup controller's to run and report on (controllers/cleanup).
        if (info.namespaced !== namespaced || info.handling === "cleanup") continue;
        for (const obj of [...store.celPolicies(info.kind)].sort(byName)) {
          const md = obj.metadata ?? {};
          const label = `${info.kind} ${info.namespaced ? `${md.namespace ?? ""}/` : ""}${md.name ?? ""}`;
          const overBudget = over.get(obj);
          if (overBudget !== undefined) {
            refuse(obj, info.kind, label, overBudget);
            continue;
          }
          const c = compiler.celPolicy(obj, info.kind, seen);
          const uid = uidOf(obj, info.kind);
          if (c.value !== undefined) {
            served.push(c.value);
            if (c.notEvaluated !== undefined)
              logOnce(problemsLogged, uid, c.fingerprint, () =>
                log("warn", "policy not evaluated: matching requests are answered as errors under its failurePolicy", {
                  policy: label,
                  reason: c.notEvaluated,
                }),
              );
          } else {
            for (const p of c.problems) problems.push({ file: label, problem: p });
            logOnce(problemsLogged, uid, c.fingerprint, () =>
              log("error", "policy not served", { policy: label, problems: c.problems }),
            );
          }
          next.push(outcomeOf(obj, info.kind, c.value, c.problems, c.notEvaluated));
        }
      }
    };
    addPolicies(store.clusterPolicies(), "ClusterPolicy");
    addCelPolicies(false);
    addPolicies(store.policies(), "Policy");
    addCelPolicies(true);
    const exceptions: AnyCompiledException[] = [];
    const exceptionObjects: { obj: KubeObject; group: ExceptionGroup }[] = [
      ...[...store.exceptions()].sort(byName).map((obj) => ({ obj, group: "kyverno.io" as const })),
      ...[...store.celExceptions()]
        .sort(byName)
        .map((obj): { obj: KubeObject; group: ExceptionGroup } => ({ obj, group: CEL_GROUP })),
    ];
    for (const { obj, group } of exceptionObjects) {
      const md = obj.metadata ?? {};
      const label = exceptionLabel(group, md.namespace ?? "", md.name ?? "");
      const uid = uidOf(obj, exceptionKeyKind(group));
      const ignored = exceptionIgnoredBecause(options.exceptions, md.namespace ?? "");
      if (ignored !== undefined) {
        seen.add(uid);
        logOnce(ignoredLogged, uid, ignored, () =>
          log("warn", "PolicyException ignored", { exception: label, reason: ignored }),
        );
        continue;
      }
      const c = compiler.exception(obj, group, seen);
      if (c.value !== undefined) exceptions.push(c.value);
      else {
        for (const p of c.problems) problems.push({ file: label, problem: p });
        logOnce(problemsLogged, uid, c.fingerprint, () =>
          log("error", "PolicyException not honoured: it is invalid", { exception: label, problems: c.problems }),
        );
      }
    }
    compiler.forgetUnseen(seen);
    for (const map of [ignoredLogged, problemsLogged])
      for (const uid of map.keys()) if (!seen.has(uid)) map.delete(uid);
    for (const uid of budgetLogged.keys()) if (!budgetSeen.has(uid)) budgetLogged.delete(uid);
    outcomes = next;

    const changed =
      snapshot.generation === 0 ||
      !sameItems(snapshot.policies, served) ||
      !sameItems(snapshot.exceptions ?? [], exceptions);
    if (changed) {
      const previous = snapshot;
      snapshot = {
        policies: served,
        ...(exceptions.length > 0 ? { exceptions } : {}),
        generation: previous.generation + 1,
        loadedAt: now(),
      };
      log("info", "policies loaded from the cluster", {
        generation: snapshot.generation,
        policies: served.length,
        exceptions: exceptions.length,
        notServed: next.length - served.length,
      });
      emit(previous.generation === 0 ? { kind: "loaded", snapshot } : { kind: "loaded", snapshot, previous });
    }
    const message = problems.length === 0 ? undefined : describe(problems);
    if (message !== error?.message) {
      error = message === undefined ? undefined : { at: now(), message, problems };
      if (error !== undefined) emit({ kind: "rejected", error });
      // Healthy again with the same served set: say so (the metrics' bylaw_policy_set_healthy).
      else if (!changed) emit({ kind: "loaded", snapshot, previous: snapshot });
    }
    options.onOutcomes?.(outcomes);
  };

  const schedule = (): void => {
    if (closed || timer !== undefined) return;
    timer = setTimeout(rebuild, options.debounceMs ?? 100);
  };
  const unsubscribe = store.onChange(schedule);
  schedule();

  return {
    current: () => snapshot,
    lastError: () => error,
    cluster: () => facts,
    outcomes: () => outcomes,
    rebuild,
    readiness: () => {
      const r = store.readiness();
      if (!r.ok)
        return snapshot.generation === 0
          ? { ok: false, reason: r.reason ?? "policies from the cluster not loaded yet" }
          : { ok: false, reason: `${r.reason ?? "a policy watch failed"} (serving generation ${snapshot.generation})` };
      if (snapshot.generation === 0) return { ok: false, reason: "policies from the cluster not loaded yet" };
      return error !== undefined ? { ok: true, reason: error.message } : { ok: true };
    },
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      unsubscribe();
      listeners.clear();
      store.close();
      return Promise.resolve();
    },
  };
}

/** Every namespaced policy object (Policy and the namespaced policies.kyverno.io kinds), for the namespace budget. */
function namespacedPolicies(store: PolicyObjectStore): { obj: KubeObject; kind: string }[] {
  const all = store.policies().map((obj) => ({ obj, kind: "Policy" }));
  for (const info of CEL_POLICY_KINDS)
    if (info.namespaced && info.handling !== "cleanup")
      for (const obj of store.celPolicies(info.kind)) all.push({ obj, kind: info.kind });
  return all;
}

function logOnce(logged: Map<string, string>, uid: string, key: string, write: () => void): void {
  if (logged.get(uid) === key) return;
  logged.set(uid, key);
  write();
}

function describe(problems: readonly SourceProblem[]): string {
  const lines = problems
    .slice(0, MAX_PROBLEMS_IN_MESSAGE)
    .map((p) => `${p.file}: ${typeof p.problem === "string" ? p.problem : p.problem.message}`);
  if (problems.length > lines.length) lines.push(`and ${problems.length - lines.length} more`);
  return `not served (the other policies are): ${lines.join("; ")}`;
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function byName(a: KubeObject, b: KubeObject): number {
  const ka = `${a.metadata?.namespace ?? ""}/${a.metadata?.name ?? ""}`;
  const kb = `${b.metadata?.namespace ?? ""}/${b.metadata?.name ?? ""}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

function outcomeOf(
  obj: KubeObject,
  kind: PolicyOutcomeKind,
  compiled: CompiledPolicy | undefined,
  problems: readonly string[],
  notEvaluated?: string,
): PolicyOutcome {
  const md = (obj.metadata ?? {}) as {
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
  };
  const spec = obj["spec"] as { rules?: JsonValue[] } | undefined;
  return {
    kind,
    namespace: kindDescriptor(kind)?.scope === "cluster" ? "" : (md.namespace ?? ""),
    name: md.name ?? "",
    uid: md.uid ?? uidOf(obj, kind),
    resourceVersion: md.resourceVersion ?? "",
    generation: typeof md.generation === "number" ? md.generation : undefined,
    rules: Array.isArray(spec?.rules) ? spec.rules : [],
    ...(obj["spec"] !== undefined ? { spec: obj["spec"] } : {}),
    status: obj["status"],
    ...(compiled !== undefined ? { compiled } : {}),
    ...(notEvaluated !== undefined ? { notEvaluated } : {}),
    problems,
  };
}
