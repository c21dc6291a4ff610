/** `bylaw test` over many suites: worker threads share them out; results keep the files' order. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { offlineEngine } from "../../offline/offline-engine.js";
import { runSuites } from "../../test-suite/run-suite.js";
import type { SuiteResult } from "../../test-suite/types.js";
import { tempTree } from "../../../../test/support/temp-dir.js";
import { IN_FLIGHT, runSuiteFiles, SUITES_PER_WORKER, workerCount, WORKERS_ENV } from "./run-suites.js";
import { policyFixture } from "../../../../test/support/policy-fixtures.js";

const policy = policyFixture("require-team");
const pod = (name: string, team?: string): string =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}${team === undefined ? "" : `, labels: {team: ${team}}`}}\nspec: {containers: [{name: c, image: nginx:1}]}\n`;

/** `n` suites, each with its own pods and expectations; every third one expects the wrong result. */
function suites(n: number): string[] {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const d = `s${String(i).padStart(3, "0")}`;
    files[`${d}/policy.yaml`] = policy;
    files[`${d}/resources.yaml`] = `${pod(`good-${i}`, "a")}---\n${pod(`bad-${i}`)}`;
    files[`${d}/kyverno-test.yaml`] = `apiVersion: cli.kyverno.io/v1alpha1
kind: Test
metadata: {name: suite-${i}}
policies: [policy.yaml]
resources: [resources.yaml]
results:
- {policy: require-team, rule: check-team, resources: [good-${i}], kind: Pod, result: pass}
- {policy: require-team, rule: check-team, resources: [bad-${i}], kind: Pod, result: ${i % 3 === 0 ? "pass" : "fail"}}
`;
  }
  const root = tempTree(files);
  return Object.keys(files)
    .filter((f) => f.endsWith("kyverno-test.yaml"))
    .sort()
    .map((f) => join(root, f));
}

const here = (file: string): Promise<SuiteResult[]> => runSuites(file, offlineEngine);

describe("workerCount", () => {
  test("none for a few suites or two cores, one per core beyond the main thread's for many on more", () => {
    assert.equal(workerCount(5, {}, 8), 0);
    assert.equal(workerCount(SUITES_PER_WORKER - 1, {}, 8), 0);
    assert.equal(workerCount(SUITES_PER_WORKER, {}, 8), 1);
    assert.equal(
      workerCount(500, {}, 2),
      0,
      "two cores: a worker repeats the main thread's JIT work and costs more than it saves",
    );
    assert.equal(workerCount(500, {}, 3), 2);
    assert.equal(workerCount(500, {}, 8), 7);
    assert.equal(workerCount(500, {}, 1), 0);
  });

  test(`${WORKERS_ENV} sets the number (never more than the suites beyond the first), and a bad value is an error`, () => {
    assert.equal(workerCount(500, { [WORKERS_ENV]: "0" }, 8), 0);
    assert.equal(workerCount(500, { [WORKERS_ENV]: "3" }, 2), 3);
    assert.equal(workerCount(2, { [WORKERS_ENV]: "3" }, 2), 1);
    assert.deepEqual(workerCount(500, { [WORKERS_ENV]: "many" }, 2), {
      error: `${WORKERS_ENV} must be a whole number of worker threads, 0 or more (got "many")`,
    });
    assert.ok(typeof workerCount(500, { [WORKERS_ENV]: "-1" }, 2) === "object");
  });
});

describe("runSuiteFiles", () => {
  const files = suites(24);

  test("worker threads give the same results, in the same order, as the main thread alone", async () => {
    const alone = await runSuiteFiles(files, { workers: 0, runHere: here });
    const finished: string[] = [];
    const shared = await runSuiteFiles(files, {
      workers: 2,
      runHere: here,
      onDone: (n, total, file) => finished.push(`${n}/${total} ${file}`),
    });
    assert.deepEqual(shared, alone);
    assert.deepEqual(
      alone.map((s) => s.name),
      files.map((_f, i) => `suite-${i}`),
    );
    assert.deepEqual(
      alone.map((s) => s.results.filter((r) => !r.ok).length),
      files.map((_f, i) => (i % 3 === 0 ? 1 : 0)),
    );
    assert.equal(finished.length, files.length);
    assert.deepEqual(
      finished.map((f) => f.split(" ")[0]),
      files.map((_f, i) => `${i + 1}/${files.length}`),
    );
  });

  test("a suite that finishes early does not move ahead of the ones before it", async () => {
    const order: number[] = [];
    const slowFirst = async (file: string): Promise<SuiteResult[]> => {
      const i = files.indexOf(file);
      await new Promise((r) => setTimeout(r, i < IN_FLIGHT ? 30 * (IN_FLIGHT - i) : 0));
      order.push(i);
      return here(file);
    };
    const results = await runSuiteFiles(files.slice(0, 8), { workers: 0, runHere: slowFirst });
    assert.notDeepEqual(
      order,
      [...order].sort((a, b) => a - b),
      "the suites finished out of order",
    );
    assert.deepEqual(
      results.map((s) => s.name),
      files.slice(0, 8).map((_f, i) => `suite-${i}`),
    );
  });

  test("a worker that cannot start loses no suite: the main thread runs what it held", async () => {
    const broken = new URL("data:text/javascript,throw new Error('no worker today')");
    const results = await runSuiteFiles(files, { workers: 2, runHere: here, workerUrl: broken });
    assert.deepEqual(results, await runSuiteFiles(files, { workers: 0, runHere: here }));
  });

  test("a suite that throws in a worker ends the run with its error, as it would in the main thread", async () => {
    const throwing = new URL(
      `data:text/javascript,${encodeURIComponent(`import { parentPort, workerData } from "node:worker_threads";
const i = Atomics.add(new Int32Array(workerData.next), 0, 1);
parentPort.postMessage({ claimed: i });
parentPort.postMessage({ index: i, error: "Error: boom in " + workerData.files[i] });`)}`,
    );
    const never = (): Promise<SuiteResult[]> => new Promise(() => undefined);
    await assert.rejects(runSuiteFiles(files, { workers: 1, runHere: never, workerUrl: throwing }), /boom in /);
    await assert.rejects(
      runSuiteFiles(files, { workers: 0, runHere: () => Promise.reject(new Error("boom here")) }),
      /boom here/,
    );
  });

  test("a worker that dies after taking files, before answering or naming them, loses none", async () => {
    // Takes three files (naming only the first) and exits: the main thread runs all three.
    const dying = new URL(
      `data:text/javascript,${encodeURIComponent(`import { parentPort, workerData } from "node:worker_threads";
const c = new Int32Array(workerData.next);
parentPort.postMessage({ claimed: Atomics.add(c, 0, 1) });
Atomics.add(c, 0, 2);
process.exit(3);`)}`,
    );
    const slow = async (file: string): Promise<SuiteResult[]> => {
      await new Promise((r) => setTimeout(r, 20));
      return here(file);
    };
    const results = await runSuiteFiles(files, { workers: 1, runHere: slow, workerUrl: dying });
    assert.deepEqual(results, await runSuiteFiles(files, { workers: 0, runHere: here }));
  });

  test("a worker takes files while the main thread is busy and never yields", async () => {
    // The main thread's lanes read synchronously and never give the event loop a turn; the worker
    // still runs suites, because it takes them from the shared counter itself. Each file holds the
    // main thread 250 ms, so even a worker that takes seconds to start on a loaded machine finds
    // files left (at 60 ms a worker that started after 1.4 s found none, seen at load 12).
    const ranHere: string[] = [];
    const blocking = (file: string): Promise<SuiteResult[]> => {
      const until = Date.now() + 250;
      while (Date.now() < until);
      ranHere.push(file);
      return here(file);
    };
    const results = await runSuiteFiles(files, { workers: 1, runHere: blocking });
    assert.deepEqual(results, await runSuiteFiles(files, { workers: 0, runHere: here }));
    // More than a worker could be handed at its start: it went on taking files by itself.
    assert.ok(
      files.length - ranHere.length > IN_FLIGHT,
      `the worker ran ${files.length - ranHere.length} of ${files.length} suites`,
    );
  });

  test("no files, no work", async () => {
    assert.deepEqual(await runSuiteFiles([], { workers: 2, runHere: here }), []);
  });
});
