/**
 * Bylaw's Loki push client against a real receiver of Loki's push API (VictoriaLogs, started by
 * scripts/monitoring/sinks.sh): lines pushed in JSON and in snappy protobuf are queried back with
 * their labels, structured metadata and tenant; with the receiver stopped for a while, pushes are
 * retried and nothing is lost up to the buffer's bound, and past it the drops are counted.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Registry } from "prom-client";
import { LokiClient, nanosOf, type LokiEncoding } from "../../src/platform/loki/index.js";
import { queryLogs, startSinks, waitForLogs, type Sinks } from "../support/monitoring-sinks.js";

let sinks: Sinks;
before(async () => {
  sinks = await startSinks();
});
after(async () => {
  await sinks?.down();
});

const run = `r${Date.now()}`;

function client(encoding: LokiEncoding, extra: Partial<ConstructorParameters<typeof LokiClient>[0]> = {}): LokiClient {
  return new LokiClient({
    connection: { url: sinks.lokiPushUrl, tenant: "7" },
    encoding,
    batchEntries: 5,
    batchWaitMs: 50,
    backoff: { minMs: 100, maxMs: 1000 },
    ...extra,
  });
}

for (const encoding of ["json", "protobuf"] as const) {
  test(`${encoding}: every line arrives with its stream labels, structured metadata and tenant`, async () => {
    const loki = client(encoding);
    const now = Date.now();
    for (let i = 0; i < 12; i++) {
      const labels = { job: "loki-client-test", run, encoding, parity: i % 2 === 0 ? "even" : "odd" };
      const dropped = loki.push(labels, {
        timestampNs: nanosOf(now) + BigInt(i),
        line: `line ${i} with "quotes" and ünïcode`,
        metadata: { seq: String(i), audit: "stat -c %a /etc/kubernetes" },
      });
      assert.equal(dropped, undefined);
    }
    const stats = await loki.close(10_000);
    assert.deepEqual(stats.dropped, { buffer_full: 0, invalid: 0, refused: 0, shutdown: 0 });
    assert.equal(stats.sent, 12);
    const rows = await waitForLogs(sinks, `{job="loki-client-test", run="${run}", encoding="${encoding}"}`, {
      count: 12,
      accountId: 7,
    });
    assert.equal(rows.length, 12);
    const bySeq = new Map(rows.map((r) => [r["seq"], r]));
    for (let i = 0; i < 12; i++) {
      const r = bySeq.get(String(i));
      assert.ok(r, `line ${i} arrived`);
      assert.equal(r["_msg"], `line ${i} with "quotes" and ünïcode`);
      assert.equal(r["parity"], i % 2 === 0 ? "even" : "odd");
      assert.equal(r["audit"], "stat -c %a /etc/kubernetes");
      assert.equal(new Date(r["_time"] ?? "").getTime(), now);
    }
    // Another tenant sees none of it.
    assert.deepEqual(await queryLogs(sinks, `{run="${run}", encoding="${encoding}"}`, 8), []);
  });
}

test("a stopped receiver: pushes are retried and nothing is lost up to the bound; past it drops are counted", async () => {
  const registry = new Registry();
  const problems: string[] = [];
  const loki = client("protobuf", { bufferEntries: 50, registry, onProblem: (m) => problems.push(m) });
  const labels = { job: "loki-outage-test", run };
  let seq = 0;
  const pushSome = (n: number): (string | undefined)[] =>
    Array.from({ length: n }, () => loki.push(labels, { timestampNs: nanosOf(Date.now()), line: `entry ${seq++}` }));

  pushSome(10);
  await loki.flush();
  await sinks.stop("victorialogs");
  // Results keep flowing while the receiver is down: 40 more fit in the buffer...
  for (let i = 0; i < 8; i++) {
    assert.deepEqual(pushSome(5), Array(5).fill(undefined));
    await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(loki.stats().pending, 40);
  assert.ok(loki.stats().retries > 0, "the pushes were retried");
  // ...and the next 15 do not: 10 fill the buffer to its bound of 50, 5 are dropped and counted.
  const refused = pushSome(15).filter((r) => r !== undefined);
  assert.equal(refused.length, 5);
  assert.match(refused[0] ?? "", /the buffer holds 50 entries already/);
  await sinks.start("victorialogs");
  const stats = await loki.close(30_000);
  assert.equal(stats.sent, 60);
  assert.deepEqual(stats.dropped, { buffer_full: 5, invalid: 0, refused: 0, shutdown: 0 });
  const exposition = await registry.metrics();
  assert.match(exposition, /bylaw_loki_entries_dropped_total\{reason="buffer_full"\} 5/);
  assert.match(exposition, /bylaw_loki_entries_sent_total 60/);
  assert.ok(
    problems.some((p) => /retrying: pushing to 127\.0\.0\.1:\d+ failed/.test(p)),
    problems.join("\n"),
  );
  const rows = await waitForLogs(sinks, `{job="loki-outage-test", run="${run}"}`, { count: 60, accountId: 7 });
  const lines = new Set(rows.map((r) => r["_msg"]));
  assert.equal(lines.size, 60);
  for (let i = 0; i < 60; i++) assert.ok(lines.has(`entry ${i}`), `entry ${i} arrived`);
});

describe("what Loki would refuse is not sent", () => {
  test("a label name Loki rejects, and a line older than a week, are dropped as invalid with the reason", async () => {
    const loki = client("json");
    assert.match(
      loki.push({ "app.kubernetes.io/name": "x" }, { timestampNs: nanosOf(Date.now()), line: "x" }) ?? "",
      /label name "app.kubernetes.io\/name" is not \[a-zA-Z_\]\[a-zA-Z0-9_\]\*/,
    );
    assert.match(
      loki.push({ job: "x" }, { timestampNs: nanosOf(Date.now() - 8 * 86_400_000), line: "x" }) ?? "",
      /older than a week/,
    );
    const stats = await loki.close(1000);
    assert.equal(stats.dropped.invalid, 2);
  });
});
