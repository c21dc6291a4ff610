/**
 * `bylaw test`'s suite worker (worker_threads): takes files from the counter it shares with the
 * main thread (run-suites.ts), runs each with the offline engine and posts the result back. It never
 * waits for the main thread to hand it work, so a busy main thread does not leave it idle.
 */
import { parentPort, workerData } from "node:worker_threads";
import { ParseCache } from "../../../platform/files/parse-cache.js";
import { useParsedFiles } from "../../../platform/files/parsed-files-hook.js";
import { offlineEngine } from "../../offline/offline-engine.js";
import { runSuites } from "../../test-suite/run-suite.js";
import { saveCompileCache } from "../../launch/save-compile-cache.js";
import { IN_FLIGHT, takeIndex } from "./take-index.js";
import type { SuiteReply, SuiteWorkerData } from "./suite-messages.js";

/** Suites answered before the worker writes its compile cache (it is never told when it ends). */
const CACHE_AFTER = 2;

const port = parentPort;
if (port === null) throw new Error("suite-worker.js runs only as a worker thread");
const { files, next, parsePack } = workerData as SuiteWorkerData;
const counter = new Int32Array(next);
let answered = 0;
// The main thread's parse cache pack, read here; what this worker used and parsed goes back with each result for the main thread to save.
const parsed = parsePack === undefined ? undefined : new ParseCache(parsePack);
useParsedFiles(parsed);

async function lane(): Promise<void> {
  for (let i = takeIndex(counter, files.length); i !== undefined; i = takeIndex(counter, files.length)) {
    port?.postMessage({ claimed: i } satisfies SuiteReply);
    try {
      const result = await runSuites(files[i] ?? "", offlineEngine);
      port?.postMessage({
        index: i,
        result,
        ...(parsed !== undefined ? { parsed: parsed.report() } : {}),
      } satisfies SuiteReply);
      if (++answered === CACHE_AFTER) saveCompileCache();
    } catch (e) {
      port?.postMessage({
        index: i,
        error: e instanceof Error ? (e.stack ?? e.message) : String(e),
      } satisfies SuiteReply);
      return;
    }
  }
}

for (let l = 0; l < IN_FLIGHT; l++) void lane();
