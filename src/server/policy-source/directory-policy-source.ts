/**
 * Policies from a watched directory (and cluster facts from a watched file) for `bylaw serve`.
 *
 * Reloads are atomic: the whole new set is read and compiled first and replaces the current
 * snapshot only if every document loaded and compiled. Otherwise the last good snapshot stays,
 * `lastError()` names each file, document, line and field, and listeners get "rejected".
 * Content that did not change (an editor touching a file, a poll) does not make a new generation.
 *
 * If the first load fails the promise still resolves: with an empty snapshot, generation 0, and
 * `lastError()` set, so readiness can say why and a later fix is picked up without a restart.
 *
 * Cluster facts reload the same way and independently. A good facts load emits "loaded" with the
 * unchanged policy snapshot as both `snapshot` and `previous`; a bad one emits "rejected".
 * `lastError()` reports the policy and the facts problems together until each is fixed.
 */
import { basename, dirname } from "node:path";
import type { PolicyLoadError, PolicySnapshot, PolicySourceEvent } from "../types.js";
import { createChangeTrigger } from "./change-trigger.js";
import { clusterFactsView, EMPTY_FACTS } from "./cluster-facts.js";
import { readClusterFactsFile } from "./cluster-facts-file.js";
import { compilePolicySet, describeProblem, readPolicyFiles } from "./compile-policy-set.js";
import { listPolicyTree, statOrUndefined, statSignature, treeSignature } from "./list-policy-files.js";
import type { DirectoryPolicySource, DirectoryPolicySourceOptions, SourceProblem } from "./types.js";

const MAX_PROBLEMS_IN_MESSAGE = 10;

export async function directoryPolicySource(options: DirectoryPolicySourceOptions): Promise<DirectoryPolicySource> {
  const { dir, engine, clusterFile } = options;
  const now = options.now ?? Date.now;
  const log = options.onLog ?? (() => undefined);
  const timing = { mode: options.mode ?? "watch", debounceMs: options.debounceMs ?? 250, pollMs: options.pollMs ?? 2000, onLog: log } as const;
  const listeners = new Set<(event: PolicySourceEvent) => void>();
  let snapshot: PolicySnapshot = { policies: [], generation: 0, loadedAt: now() };
  let policyError: PolicyLoadError | undefined;
  let factsError: PolicyLoadError | undefined;
  let facts = clusterFactsView(EMPTY_FACTS);
  let policyFingerprint: string | undefined;
  let factsFingerprint: string | undefined;
  let closed = false;

  const emit = (event: PolicySourceEvent): void => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (e) {
        log("error", "a policy source listener threw", { error: e instanceof Error ? e.message : String(e) });
      }
    }
  };

  const reject = (what: string, problems: readonly SourceProblem[]): PolicyLoadError => {
    const lines = problems.slice(0, MAX_PROBLEMS_IN_MESSAGE).map(describeProblem);
    if (problems.length > lines.length) lines.push(`and ${problems.length - lines.length} more`);
    const error: PolicyLoadError = { at: now(), message: `${what}: ${lines.join("; ")}`, problems };
    log("error", what, { problems: problems.map(describeProblem) });
    emit({ kind: "rejected", error });
    return error;
  };

  const loadPolicies = async (): Promise<void> => {
    const listed = await listPolicyTree(dir);
    if (closed) return;
    policyTrigger.watch(listed.ok ? listed.tree.dirs : [dir]);
    const read = listed.ok ? await readPolicyFiles(listed.tree.files) : { fingerprint: `error:${listed.message}`, documents: [] };
    if (closed || read.fingerprint === policyFingerprint) return;
    policyFingerprint = read.fingerprint;
    const set = listed.ok ? compilePolicySet(read.documents, engine) : { ok: false as const, problems: [{ file: dir, problem: listed.message }], warnings: [] };
    for (const w of set.warnings) log("warn", w, { dir });
    if (!set.ok) {
      const keeping = snapshot.generation === 0 ? "no policies loaded" : `policies not reloaded, keeping generation ${snapshot.generation} (${snapshot.policies.length} policies)`;
      policyError = reject(keeping, set.problems);
      return;
    }
    const previous = snapshot;
    snapshot = { policies: set.policies, ...(set.exceptions.length > 0 ? { exceptions: set.exceptions } : {}), generation: previous.generation + 1, loadedAt: now() };
    policyError = undefined;
    log("info", "policies loaded", { dir, generation: snapshot.generation, policies: snapshot.policies.length, exceptions: set.exceptions.length, files: listed.ok ? listed.tree.files.length : 0 });
    emit(previous.generation === 0 ? { kind: "loaded", snapshot } : { kind: "loaded", snapshot, previous });
  };

  const loadFacts = async (file: string): Promise<void> => {
    const read = await readClusterFactsFile(file);
    if (closed || read.fingerprint === factsFingerprint) return;
    factsFingerprint = read.fingerprint;
    if (!read.ok) {
      factsError = reject("cluster facts not reloaded, keeping the last good ones", read.problems);
      return;
    }
    facts = clusterFactsView(read.facts);
    factsError = undefined;
    log("info", "cluster facts loaded", { file, namespaces: read.facts.namespaces.size, users: read.facts.users.size, groups: read.facts.groups.size });
    emit({ kind: "loaded", snapshot, previous: snapshot });
  };

  const policyTrigger = createChangeTrigger({ ...timing, name: "policies", signature: () => treeSignature(dir), reload: loadPolicies });
  const factsTrigger =
    clusterFile === undefined
      ? undefined
      : createChangeTrigger({
          ...timing,
          name: "cluster facts",
          // A ConfigMap key is `name -> ..data/name`; an update swaps `..data`, so watch the folder.
          accept: (_dir, name) => name === null || name === basename(clusterFile) || name.startsWith(".."),
          signature: async () => statSignature(await statOrUndefined(clusterFile)),
          reload: () => loadFacts(clusterFile),
        });

  await policyTrigger.run();
  if (factsTrigger !== undefined) {
    await factsTrigger.run();
    factsTrigger.watch([dirname(clusterFile ?? ".")]);
  }

  return {
    current: () => snapshot,
    lastError: () => mergeErrors(policyError, factsError),
    cluster: () => facts,
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    async close() {
      closed = true;
      listeners.clear();
      await Promise.all([policyTrigger.close(), factsTrigger?.close()]);
    },
  };
}

function mergeErrors(a: PolicyLoadError | undefined, b: PolicyLoadError | undefined): PolicyLoadError | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return { at: Math.max(a.at, b.at), message: `${a.message}; ${b.message}`, problems: [...a.problems, ...b.problems] };
}
