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
 * No policies at all is refused like an invalid set (a deleted or broken ConfigMap mount must not
 * turn enforcement off), unless `allowEmpty`. Files are read only once the tree has been still for
 * the settle window (settle.ts), so a half-written file is never loaded.
 *
 * Cluster facts reload the same way and independently. A good facts load emits "loaded" with the
 * unchanged policy snapshot as both `snapshot` and `previous`; a bad one emits "rejected".
 * `lastError()` reports the policy and the facts problems together until each is fixed. Until the
 * facts first load, `cluster()` throws (so every review is answered per its failurePolicy) and
 * `readiness()` says not ready.
 */
import { basename, dirname } from "node:path";
import type { PolicyLoadError, PolicySnapshot, PolicySourceEvent } from "../types.js";
import { createChangeTrigger } from "./change-trigger.js";
import { clusterFactsView, EMPTY_FACTS, unloadedFacts } from "./cluster-facts.js";
import { readClusterFactsFile } from "./cluster-facts-file.js";
import { compilePolicySet, describeProblem, readPolicyFiles } from "./compile-policy-set.js";
import { listPolicyTree, statOrUndefined, statSignature, treeSignature } from "./list-policy-files.js";
import { sourceReadiness } from "./readiness.js";
import { settledTree, statTree } from "./settle.js";
import type { DirectoryPolicySource, DirectoryPolicySourceOptions, SourceProblem } from "./types.js";
import { notifyListeners } from "./notify-listeners.js";

const MAX_PROBLEMS_IN_MESSAGE = 10;

export async function directoryPolicySource(options: DirectoryPolicySourceOptions): Promise<DirectoryPolicySource> {
  const { dir, engine, clusterFile } = options;
  const now = options.now ?? Date.now;
  const log = options.onLog ?? (() => undefined);
  const timing = {
    mode: options.mode ?? "watch",
    debounceMs: options.debounceMs ?? 250,
    pollMs: options.pollMs ?? 2000,
    onLog: log,
  } as const;
  const settleMs = options.settleMs ?? 1000;
  const listeners = new Set<(event: PolicySourceEvent) => void>();
  let snapshot: PolicySnapshot = { policies: [], generation: 0, loadedAt: now() };
  let policyError: PolicyLoadError | undefined;
  let factsError: PolicyLoadError | undefined;
  let facts =
    clusterFile === undefined ? clusterFactsView(EMPTY_FACTS) : unloadedFacts(clusterFile, () => factsError?.message);
  let factsLoaded = clusterFile === undefined;
  let policyFingerprint: string | undefined;
  let factsFingerprint: string | undefined;
  let closed = false;

  const emit = (event: PolicySourceEvent): void => notifyListeners(listeners, event, log);

  const reject = (what: string, problems: readonly SourceProblem[]): PolicyLoadError => {
    const lines = problems.slice(0, MAX_PROBLEMS_IN_MESSAGE).map(describeProblem);
    if (problems.length > lines.length) lines.push(`and ${problems.length - lines.length} more`);
    const error: PolicyLoadError = { at: now(), message: `${what}: ${lines.join("; ")}`, problems };
    log("error", what, { problems: problems.map(describeProblem) });
    emit({ kind: "rejected", error });
    return error;
  };

  /** The files, once the tree has been still for the settle window; undefined while it is changing (a later reload reads it). */
  const settledRead = async (
    files: readonly string[],
    dirs: readonly string[],
  ): Promise<Awaited<ReturnType<typeof readPolicyFiles>> | undefined> => {
    const paths = [...dirs, ...files];
    const before = await settledTree(paths, settleMs);
    if (before !== undefined && !closed) {
      const read = await readPolicyFiles(files);
      if ((await statTree(paths)).signature === before) return read;
    }
    if (!closed) {
      log("debug", "policy files are still changing; reading them once they settle", { dir, settleMs });
      policyTrigger.poke(settleMs);
    }
    return undefined;
  };

  const loadPolicies = async (): Promise<void> => {
    const listed = await listPolicyTree(dir);
    if (closed) return;
    policyTrigger.watch(listed.ok ? listed.tree.dirs : [dir]);
    const read = listed.ok
      ? await settledRead(listed.tree.files, listed.tree.dirs)
      : { fingerprint: `error:${listed.message}`, documents: [] };
    if (closed || read === undefined || read.fingerprint === policyFingerprint) return;
    policyFingerprint = read.fingerprint;
    const compiled = listed.ok
      ? compilePolicySet(read.documents, engine, options.checkPolicy)
      : { ok: false as const, problems: [{ file: dir, problem: listed.message }], warnings: [] };
    const set =
      compiled.ok && compiled.policies.length === 0 && options.allowEmpty !== true
        ? { ok: false as const, problems: [{ file: dir, problem: emptyProblem(dir) }], warnings: compiled.warnings }
        : compiled;
    for (const w of set.warnings) log("warn", w, { dir });
    if (!set.ok) {
      const keeping =
        snapshot.generation === 0
          ? "no policies loaded"
          : `policies not reloaded, keeping generation ${snapshot.generation} (${snapshot.policies.length} policies)`;
      policyError = reject(keeping, set.problems);
      return;
    }
    const previous = snapshot;
    snapshot = {
      policies: set.policies,
      ...(set.exceptions.length > 0 ? { exceptions: set.exceptions } : {}),
      generation: previous.generation + 1,
      loadedAt: now(),
    };
    policyError = undefined;
    log("info", "policies loaded", {
      dir,
      generation: snapshot.generation,
      policies: snapshot.policies.length,
      exceptions: set.exceptions.length,
      files: listed.ok ? listed.tree.files.length : 0,
    });
    emit(previous.generation === 0 ? { kind: "loaded", snapshot } : { kind: "loaded", snapshot, previous });
  };

  const loadFacts = async (file: string): Promise<void> => {
    const before = await settledTree([file], settleMs);
    const read = before === undefined || closed ? undefined : await readClusterFactsFile(file);
    if (read === undefined || (await statTree([file])).signature !== before) {
      if (!closed) factsTrigger?.poke(settleMs);
      return;
    }
    if (closed || read.fingerprint === factsFingerprint) return;
    factsFingerprint = read.fingerprint;
    if (!read.ok) {
      factsError = reject(
        factsLoaded ? "cluster facts not reloaded, keeping the last good ones" : "no cluster facts loaded",
        read.problems,
      );
      return;
    }
    facts = clusterFactsView(read.facts);
    factsLoaded = true;
    factsError = undefined;
    log("info", "cluster facts loaded", {
      file,
      namespaces: read.facts.namespaces.size,
      users: read.facts.users.size,
      groups: read.facts.groups.size,
    });
    emit({ kind: "loaded", snapshot, previous: snapshot });
  };

  const policyTrigger = createChangeTrigger({
    ...timing,
    name: "policies",
    signature: () => treeSignature(dir),
    reload: loadPolicies,
  });
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
    readiness: () => sourceReadiness({ snapshot, policyError, factsFile: clusterFile, factsLoaded, factsError }),
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

function emptyProblem(dir: string): string {
  return `no policies in ${dir}: refusing to turn enforcement off (a deleted or broken ConfigMap mount looks like this); add policies, or run bylaw serve with --allow-empty-policies to serve none`;
}
