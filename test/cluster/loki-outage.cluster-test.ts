/**
 * Issue 37, done-when 5, end to end: `scripts/cluster.sh up DIR --with-bylaw` running the monitoring
 * component with `--loki` to a real VictoriaLogs (scripts/monitoring/sinks.sh), which is stopped for
 * 60 s while new PolicyReport results and Events keep coming, then started again:
 * - up to the client's buffer bound (10,000 entries) nothing is lost: every entry held during the
 *   outage arrives after it, once (no line twice); past the bound new entries are dropped and
 *   counted in bylaw_loki_entries_dropped_total{reason="buffer_full"};
 * - the outage shows on /metrics while it lasts (bylaw_loki_push_failures_total rising,
 *   bylaw_loki_entries_pending at the bound);
 * - Bylaw's memory stays bounded: its RSS before, during and after is printed and compared;
 * - a `--loki-filter` given on the command line leaves its results out throughout.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  bylawEnv,
  eventually,
  kubectlOk,
  processMemoryMiB,
  readPids,
  restartBylaw,
  startCluster,
  started,
  tearDown,
  type Cluster,
} from "./cluster-harness.js";
import { MONITORING_BINDING } from "./monitoring-binding.js";
import type { JsonObject } from "../../src/engine/index.js";
import { queryLogs, startSinks, waitForLogs, type Sinks } from "../support/monitoring-sinks.js";

const buildTimeoutMs = 90 * 60_000;
const OUTAGE_MS = 60_000;
/** LokiClient's default bound (docs/monitoring.md), which `serve` uses. */
const BUFFER = 10_000;
const RESULTS_PER_REPORT = 500;
/** Reports written during the outage: 22 × 500 results + the Events, past the bound by about 1,000. */
const OUTAGE_REPORTS = 22;
const OUTAGE_EVENTS = 20;

let cluster: Cluster | undefined;
let sinks: Sinks | undefined;
const current = (): Cluster => started(cluster);
const ok = (args: readonly string[], input?: string): Promise<string> => kubectlOk(current(), args, input);
const logs = (): Sinks => sinks ?? assert.fail("VictoriaLogs did not start (see the before hook)");

const args = (lokiPushUrl: string): string =>
  [
    "--component admission --component monitoring",
    `--loki ${lokiPushUrl} --loki-label run=outage`,
    "--loki-filter namespaces.exclude=ignored",
    "--loki-events --loki-event-match reason=^OutageTest$",
  ].join(" ");

/** A PolicyReport (as Kyverno writes one) whose results each have their own message. */
function report(namespace: string, name: string, results: number): JsonObject {
  return {
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: "PolicyReport",
    metadata: { name, namespace },
    scope: { apiVersion: "v1", kind: "Pod", name, namespace },
    summary: { pass: 0, fail: results, warn: 0, error: 0, skip: 0 },
    results: Array.from({ length: results }, (_, i) => ({
      policy: "require-team",
      rule: "check-team",
      result: "fail",
      severity: "medium",
      source: "kyverno",
      scored: true,
      message: `${name} result ${i}: label 'team' is required`,
      timestamp: { seconds: Math.floor(Date.now() / 1000), nanos: 0 },
    })),
  };
}

function event(name: string): JsonObject {
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace: "outage" },
    involvedObject: { apiVersion: "v1", kind: "Pod", name: "web", namespace: "outage" },
    reason: "OutageTest",
    message: `event ${name}`,
    type: "Warning",
    source: { component: "loki-outage-test" },
  };
}

const list = (items: readonly JsonObject[]): string => JSON.stringify({ apiVersion: "v1", kind: "List", items });

function metricsPort(): string {
  return bylawEnv(current().dir)["BYLAW_METRICS_PORT"] ?? assert.fail("no BYLAW_METRICS_PORT");
}

/** One sample of Bylaw's /metrics (0 when absent). */
async function metric(line: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort()}/metrics`)).text();
  const found = text.split("\n").find((l) => l.startsWith(`${line} `));
  return found !== undefined ? Number(found.slice(line.length + 1)) : 0;
}

/** Bylaw's resident memory, in MiB, from /proc. */
function rssMiB(): number {
  return processMemoryMiB(readPids(current().dir).get("bylaw") ?? assert.fail("no Bylaw pid"), "VmRSS");
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe(
  "a 60 s outage of the Loki sink while results and Events flow",
  { timeout: buildTimeoutMs + 10 * 60_000 },
  () => {
    before(async () => {
      sinks = await startSinks();
      cluster = await startCluster(buildTimeoutMs, undefined, { withBylaw: true, bylawArgs: args(logs().lokiPushUrl) });
      const base = readFileSync(join(current().dir, "bylaw-base.yaml"), "utf8");
      await ok(["apply", "--server-side", "-f", "-", "-l", "app.kubernetes.io/component=monitoring"], base);
      await ok(["apply", "-f", "-"], MONITORING_BINDING);
      await restartBylaw(current(), { extraArgs: args(logs().lokiPushUrl) });
      for (const ns of ["outage", "ignored"]) await ok(["create", "namespace", ns]);
    });
    after(async () => {
      await tearDown(cluster);
      await sinks?.down();
    });

    test("nothing is lost up to the buffer's bound, nothing twice; past it drops are counted; memory stays bounded", async () => {
      const all = `{run="outage"}`;
      // Flowing: a report's 100 results and 2 Events arrive (the filtered namespace's do not).
      const first = [report("outage", "before", 100), report("ignored", "ignored-before", 50)];
      await ok(["create", "-f", "-"], list([...first, event("before-1"), event("before-2")]));
      const flowing = await waitForLogs(logs(), all, { count: 102, timeoutMs: 60_000 });
      assert.equal(flowing.length, 102);
      const rss = { before: rssMiB(), during: [] as number[], after: 0 };
      const failuresBefore = await metric("bylaw_loki_push_failures_total");

      await logs().stop("victorialogs");
      const outageStart = performance.now();
      // Eleven writes spread over the first 45 s, each a List of two reports and their Events.
      for (let step = 0; step < OUTAGE_REPORTS / 2; step++) {
        const items = [2 * step, 2 * step + 1].flatMap((i) => [
          report("outage", `during-${i}`, RESULTS_PER_REPORT),
          ...(i < OUTAGE_EVENTS ? [event(`during-${i}`)] : []),
          ...(i === 3 ? [report("ignored", "ignored-during", 50)] : []),
        ]);
        await ok(["create", "-f", "-"], list(items));
        if (step % 3 === 2) rss.during.push(rssMiB());
        const due = ((step + 1) * OUTAGE_MS * 0.75) / (OUTAGE_REPORTS / 2);
        await sleep(Math.max(0, due - (performance.now() - outageStart)));
      }
      const produced = OUTAGE_REPORTS * RESULTS_PER_REPORT + OUTAGE_EVENTS;
      const expectDropped = produced - BUFFER;
      // While it lasts: the buffer is at its bound, the overflow counted, the failed pushes counted.
      await eventually("the overflow to be counted as buffer_full", OUTAGE_MS, async () =>
        (await metric('bylaw_loki_entries_dropped_total{reason="buffer_full"}')) === expectDropped ? true : undefined,
      );
      assert.equal(await metric("bylaw_loki_entries_pending"), BUFFER);
      const failuresDuring = await metric("bylaw_loki_push_failures_total");
      assert.ok(failuresDuring > failuresBefore, `push failures ${failuresBefore} → ${failuresDuring}`);
      rss.during.push(rssMiB());
      await sleep(Math.max(0, OUTAGE_MS - (performance.now() - outageStart)));
      const outageSeconds = (performance.now() - outageStart) / 1000;

      await logs().start("victorialogs");
      await eventually("the held entries to be taken", 120_000, async () =>
        (await metric("bylaw_loki_entries_pending")) === 0 ? true : undefined,
      );
      const rows = await waitForLogs(logs(), all, { count: 102 + BUFFER, timeoutMs: 60_000 });
      rss.after = rssMiB();
      console.log(
        `# outage ${outageSeconds.toFixed(0)} s; produced ${produced} entries (${OUTAGE_REPORTS} reports × ${RESULTS_PER_REPORT} results + ${OUTAGE_EVENTS} Events); ` +
          `Bylaw RSS before ${rss.before.toFixed(0)} MiB, during ${rss.during.map((m) => m.toFixed(0)).join("/")} MiB, after ${rss.after.toFixed(0)} MiB`,
      );
      // Every entry the buffer held arrived, once: the lines before it, then exactly the bound.
      assert.equal(rows.length, 102 + BUFFER);
      // (An Event's JSON line is stored as its fields, so its `message` tells it apart, not `_msg`.)
      const keys = new Set(rows.map((r) => `${r["_stream"] ?? ""} ${r["_msg"] ?? ""} ${r["message"] ?? ""}`));
      assert.equal(keys.size, rows.length, "no line arrived twice");
      assert.equal(await metric('bylaw_loki_entries_dropped_total{reason="buffer_full"}'), expectDropped);
      assert.equal(await metric("bylaw_loki_entries_sent_total"), 102 + BUFFER);
      // The Events written first in the outage were held and arrived.
      const events = await queryLogs(logs(), `{job="kubernetes-event", run="outage"}`);
      assert.ok(events.length >= 2 + 4, `${events.length} Event lines`);
      // The filtered namespace: never sent, before, during or after.
      assert.deepEqual(await queryLogs(logs(), `{run="outage", namespace="ignored"}`), []);
      // Bounded: the 10,000 held entries and 11,000 reports' results cost tens of MiB, not a leak.
      const peak = Math.max(...rss.during, rss.after);
      assert.ok(peak < rss.before + 200, `RSS ${rss.before.toFixed(0)} → peak ${peak.toFixed(0)} MiB`);
    });
  },
);
