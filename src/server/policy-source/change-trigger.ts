/**
 * Turns file-system changes into serial, debounced reloads.
 *
 * - `watch` mode: one fs.watch (inotify) per directory; Node 20 has no recursive watch on Linux,
 *   so the caller passes every directory after each load and the set is kept in step. A
 *   ConfigMap update is an atomic rename of `..data` inside the root, which the root's watch sees.
 * - While any directory cannot be watched (it does not exist yet, inotify limits) and in `poll`
 *   mode, a poller compares a cheap signature every `pollMs` instead.
 * - Reloads never overlap: a change during a reload runs one more reload after it.
 * - close() removes every watch and timer and waits for a running reload.
 */
import { watch, type FSWatcher } from "node:fs";
import type { LogFn } from "./types.js";

interface ChangeTriggerOptions {
  /** What is watched, for logs: "policies" or "cluster facts". */
  readonly name: string;
  readonly mode: "watch" | "poll";
  readonly debounceMs: number;
  readonly pollMs: number;
  /** A cheap fingerprint of what is watched, for polling. */
  readonly signature: () => Promise<string>;
  /** Which events matter; all by default. */
  readonly accept?: (dir: string, filename: string | null) => boolean;
  readonly reload: () => Promise<void>;
  readonly onLog: LogFn;
}

interface ChangeTrigger {
  /** Watch exactly these directories from now on. */
  watch(dirs: readonly string[]): void;
  /** Schedule a (debounced) reload, after `delayMs` (default: the debounce window). */
  poke(delayMs?: number): void;
  /** Reload now, after any running reload; resolves when done. */
  run(): Promise<void>;
  close(): Promise<void>;
}

export function createChangeTrigger(options: ChangeTriggerOptions): ChangeTrigger {
  const { name, onLog } = options;
  const watchers = new Map<string, FSWatcher>();
  let closed = false;
  let debounce: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let poll: { timer: NodeJS.Timeout | undefined; last: string | undefined } | undefined;

  const runReloads = async (): Promise<void> => {
    do {
      again = false;
      try {
        await options.reload();
      } catch (e) {
        onLog("error", `reloading ${name} failed unexpectedly`, { error: e instanceof Error ? e.message : String(e) });
      }
    } while (again && !closed);
  };

  const start = (): Promise<void> => {
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = runReloads().finally(() => {
      running = undefined;
    });
    return running;
  };

  const fire = (): void => {
    debounce = undefined;
    if (!closed) void start();
  };

  const poke = (delayMs = options.debounceMs): void => {
    if (closed) return;
    if (debounce !== undefined) clearTimeout(debounce);
    debounce = setTimeout(fire, Math.max(delayMs, options.debounceMs));
  };

  const tick = async (): Promise<void> => {
    const mine = poll;
    if (mine === undefined) return;
    mine.timer = undefined;
    const sig = await options.signature().catch((e: unknown) => `error:${String(e)}`);
    if (closed || poll !== mine) return;
    if (mine.last !== undefined && mine.last !== sig) poke();
    mine.last = sig;
    mine.timer = setTimeout(() => void tick(), options.pollMs);
  };

  const setPolling = (on: boolean): void => {
    if (on && poll === undefined) {
      onLog("info", `polling ${name} every ${options.pollMs} ms`, { mode: options.mode });
      poll = { timer: undefined, last: undefined };
      void tick();
      poke(); // catch a change made before the poller took its first signature
    } else if (!on && poll !== undefined) {
      if (poll.timer !== undefined) clearTimeout(poll.timer);
      poll = undefined;
      onLog("info", `watching ${name} again; polling stopped`, {});
    }
  };

  const unwatch = (dir: string): void => {
    watchers.get(dir)?.close();
    watchers.delete(dir);
  };

  const startWatch = (dir: string): boolean => {
    try {
      const w = watch(dir, { persistent: true }, (_event, filename) => {
        const file = typeof filename === "string" ? filename : null;
        if (options.accept === undefined || options.accept(dir, file)) poke();
      });
      w.on("error", (e) => {
        onLog("debug", `stopped watching ${dir}`, { error: e.message });
        unwatch(dir);
        poke();
      });
      watchers.set(dir, w);
      return true;
    } catch (e) {
      onLog("debug", `cannot watch ${dir}`, { error: e instanceof Error ? e.message : String(e) });
      return false;
    }
  };

  return {
    watch(dirs) {
      if (closed) return;
      if (options.mode === "poll") {
        setPolling(true);
        return;
      }
      const wanted = new Set(dirs);
      for (const dir of [...watchers.keys()]) if (!wanted.has(dir)) unwatch(dir);
      let failed = false;
      let added = false;
      for (const dir of wanted) {
        if (watchers.has(dir)) continue;
        if (startWatch(dir)) added = true;
        else failed = true;
      }
      setPolling(failed);
      // A change made after the caller listed the tree but before a new watch began was missed.
      if (added) poke();
    },
    poke,
    run: () => (closed ? Promise.resolve() : start()),
    async close() {
      closed = true;
      if (debounce !== undefined) clearTimeout(debounce);
      debounce = undefined;
      if (poll?.timer !== undefined) clearTimeout(poll.timer);
      poll = undefined;
      for (const dir of [...watchers.keys()]) unwatch(dir);
      await running;
    },
  };
}
