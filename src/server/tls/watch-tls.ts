/**
 * Reload a certificate/key pair when its files change. The directories are watched, not the files,
 * so atomic updates keep working: an editor's rename-over, and Kubernetes Secret volumes, where
 * `tls.crt` is a symlink into `..data`, which the kubelet swaps by renaming a new symlink over it.
 * A bad new pair is reported through onError and never delivered, so the caller keeps the old one.
 */
import { watch } from "node:fs";
import type { FSWatcher } from "node:fs";
import { dirname, resolve } from "node:path";
import { type EngineError, err } from "../../engine/index.js";
import { loadTlsFiles } from "./load-tls-files.js";
import type { TlsPair } from "./types.js";

interface TlsWatchOptions {
  /** Quiet time after the last file event before reloading (default 200 ms). */
  readonly debounceMs?: number;
}

export interface TlsWatch {
  close(): void;
}

export function watchTls(
  certPath: string,
  keyPath: string,
  onChange: (tls: TlsPair) => void,
  onError: (error: EngineError) => void,
  options: TlsWatchOptions = {},
): TlsWatch {
  const debounceMs = options.debounceMs ?? 200;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  let last: TlsPair | undefined;

  const report = (error: EngineError): void => {
    if (closed) return;
    try {
      onError(error);
    } catch {
      // A throwing error callback must not take the process down.
    }
  };

  // What is on disk now is what the caller already serves: only a different pair is a change.
  const baseline = loadTlsFiles(certPath, keyPath).then((r) => {
    if (r.ok && last === undefined) last = r.value;
  });

  const reload = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await baseline;
      const loaded = await loadTlsFiles(certPath, keyPath);
      if (closed) return;
      if (!loaded.ok) {
        report(loaded.error);
      } else if (last === undefined || last.cert !== loaded.value.cert || last.key !== loaded.value.key) {
        last = loaded.value;
        try {
          onChange(loaded.value);
        } catch (e) {
          report({
            kind: "tls-reload",
            message: `applying the reloaded TLS certificate failed: ${e instanceof Error ? e.message : String(e)}`,
          });
        }
      }
    } finally {
      running = false;
      if (again && !closed) {
        again = false;
        schedule();
      }
    }
  };

  const schedule = (): void => {
    if (closed) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void reload();
    }, debounceMs);
    timer.unref();
  };

  const watchers: FSWatcher[] = [];
  for (const dir of new Set([dirname(resolve(certPath)), dirname(resolve(keyPath))])) {
    try {
      const watcher = watch(dir, { persistent: false }, schedule);
      watcher.on("error", (e) =>
        report(err("tls-watch", `watching ${dir} for TLS changes failed: ${e.message}`).error),
      );
      watchers.push(watcher);
    } catch (e) {
      report(
        err("tls-watch", `cannot watch ${dir} for TLS changes: ${e instanceof Error ? e.message : String(e)}`).error,
      );
    }
  }

  return {
    close(): void {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
