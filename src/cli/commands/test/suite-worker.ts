/**
 * `bylaw test`'s suite worker (worker_threads): runs each suite it is sent with the offline engine
 * and posts the result back. run-suites.ts starts it when there are enough suites to share out.
 */
import { parentPort } from "node:worker_threads";
import { offlineEngine } from "../../offline/offline-engine.js";
import { runSuites } from "../../test-suite/run-suite.js";
import type { SuiteJob, SuiteReply } from "./suite-messages.js";

const port = parentPort;
if (port === null) throw new Error("suite-worker.js runs only as a worker thread");
port.on("message", (job: SuiteJob) => {
  runSuites(job.file, offlineEngine).then(
    (result): void => port.postMessage({ index: job.index, result } satisfies SuiteReply),
    (e: unknown): void => port.postMessage({ index: job.index, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies SuiteReply),
  );
});
