/**
 * `bylaw test`'s suite worker (worker_threads): runs each suite it is sent with the offline engine
 * and posts the result back. run-suites.ts starts it when there are enough suites to share out.
 */
import { parentPort } from "node:worker_threads";
import { offlineEngine } from "../../offline/offline-engine.js";
import { runSuites } from "../../test-suite/run-suite.js";
import { saveCompileCache } from "../../launch/save-compile-cache.js";
import type { SuiteJob, SuiteReply } from "./suite-messages.js";

/** Suites answered before the worker writes its compile cache (it is never told when it ends). */
const CACHE_AFTER = 2;

const port = parentPort;
let answered = 0;
if (port === null) throw new Error("suite-worker.js runs only as a worker thread");
port.on("message", (job: SuiteJob) => {
  runSuites(job.file, offlineEngine).then(
    (result): void => {
      port.postMessage({ index: job.index, result } satisfies SuiteReply);
      if (++answered === CACHE_AFTER) saveCompileCache();
    },
    (e: unknown): void => port.postMessage({ index: job.index, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies SuiteReply),
  );
});
