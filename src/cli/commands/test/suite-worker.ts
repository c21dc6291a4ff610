/**
 * `bylaw test`'s suite worker (worker_threads): takes files from the counter it shares with the
 * main thread (run-suites.ts), runs each with the offline engine and posts the result back. It never
 * waits for the main thread to hand it work, so a busy main thread does not leave it idle.
 */
import { join } from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import { ParseCache } from "../../../platform/files/parse-cache.js";
import { useParsedFiles } from "../../../platform/files/parsed-files-hook.js";
import { offlineEngine } from "../../offline/offline-engine.js";
import { runSuites } from "../../test-suite/run-suite.js";
import { buildCacheDir, saveCompileCache } from "../../launch/save-compile-cache.js";
import { IN_FLIGHT, takeIndex } from "./take-index.js";
import type { SuiteReply, SuiteWorkerData } from "./suite-messages.js";

/** Suites answered before the worker writes its compile cache (it is never told when it ends). */
const CACHE_AFTER = 2;

const port = parentPort;
if (port === null) throw new Error("suite-worker.js runs only as a worker thread");
const { files, next } = workerData as SuiteWorkerData;
const counter = new Int32Array(next);
let answered = 0;
// The parse cache, as in the main thread (command.ts); saved after each suite, as the worker is never told when it ends.
const cacheDir = buildCacheDir();
const parsed = cacheDir === undefined ? undefined : new ParseCache(join(cacheDir, "parse"));
useParsedFiles(parsed);

async function lane(): Promise<void> {
  for (let i = takeIndex(counter, files.length); i !== undefined; i = takeIndex(counter, files.length)) {
    port?.postMessage({ claimed: i } satisfies SuiteReply);
    try {
      const result = await runSuites(files[i] ?? "", offlineEngine);
      port?.postMessage({ index: i, result } satisfies SuiteReply);
      parsed?.save();
      if (++answered === CACHE_AFTER) saveCompileCache();
    } catch (e) {
      port?.postMessage({ index: i, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies SuiteReply);
      return;
    }
  }
}

for (let l = 0; l < IN_FLIGHT; l++) void lane();
