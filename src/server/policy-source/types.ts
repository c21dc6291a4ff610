/** Options and problem shapes of the directory policy source. */
import type { CompiledPolicy, Engine, PolicyProblem } from "../../engine/index.js";
import type { ClusterFacts, PolicySource } from "../types.js";

export type LogLevel = "debug" | "info" | "warn" | "error";
export type LogFn = (level: LogLevel, msg: string, fields: Readonly<Record<string, unknown>>) => void;

export interface DirectoryPolicySourceOptions {
  /** Directory of ClusterPolicy/Policy documents, read recursively (`.yaml`, `.yml`, `.json`). */
  readonly dir: string;
  readonly engine: Engine;
  /** A `bylaw.dev/v1alpha1` ClusterFacts YAML file: namespace labels and RBAC roles. */
  readonly clusterFile?: string;
  /** Quiet time after the last file-system event before reloading. Default 250 ms. */
  readonly debounceMs?: number;
  /**
   * `watch` (default): inotify watches on the directory and its sub-directories, falling back to
   * polling while a directory cannot be watched. `poll`: only poll (NFS and other file systems
   * that do not report changes).
   */
  readonly mode?: "watch" | "poll";
  /** Polling interval, when polling. Default 2000 ms. */
  readonly pollMs?: number;
  /**
   * A file is read only once nothing in the tree changed for this long (settle.ts), so that a
   * half-written file is never loaded. Default 1000 ms.
   */
  readonly settleMs?: number;
  /** Load a set with no policies at all. Default false: such a set is rejected like an invalid one. */
  readonly allowEmpty?: boolean;
  /** Further problems of a compiled policy that make the set invalid (e.g. a timeout no registered webhook serves). */
  readonly checkPolicy?: (policy: CompiledPolicy) => readonly PolicyProblem[];
  /** Wall clock in ms since the epoch, for `loadedAt` / `at`. Default Date.now. */
  readonly now?: () => number;
  readonly onLog?: LogFn;
}

export interface DirectoryPolicySource extends PolicySource {
  /**
   * The last good cluster facts: empty facts without `clusterFile`; with one, until its first good
   * load, facts whose every question throws (so that no review is evaluated without them).
   */
  cluster(): ClusterFacts;
  /** Ready once a policy set and (with `clusterFile`) the cluster facts have loaded; the reason otherwise. */
  readiness(): Readiness;
}

export interface Readiness {
  readonly ok: boolean;
  readonly reason?: string;
}

/**
 * One problem of a rejected load. `file` is the path as found under the directory; `document`
 * (counted from 1), `line` and `policy` say where inside it; a PolicyProblem's `path` is the field.
 */
export interface SourceProblem {
  readonly file: string;
  readonly problem: PolicyProblem | string;
  readonly document?: number;
  readonly line?: number;
  readonly policy?: string;
}
