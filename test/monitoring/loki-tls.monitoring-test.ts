/**
 * The Loki client over TLS with basic authentication, against a real VictoriaLogs serving https
 * with a certificate from a test CA and requiring credentials (-tls, -httpAuth.*): with the CA and
 * the right password the lines go in; a wrong password is a refusal (401) counted as dropped; without
 * the CA the server is not trusted, and the push is retried until close gives up.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { mintCa, mintServing } from "../../src/platform/tls/certificate-authority.js";
import { LokiClient, nanosOf, type LokiConnection } from "../../src/platform/loki/index.js";
import { startSinks, type Sinks } from "../support/monitoring-sinks.js";
import { tempTree } from "../support/temp-dir.js";

const now = Date.now();
const ca = mintCa("bylaw test loki CA", { now, validityMs: 86_400_000 });
const serving = mintServing(ca, ["localhost"], ["127.0.0.1"], { now, validityMs: 86_400_000 });
let sinks: Sinks;

before(async () => {
  const dir = tempTree({});
  writeFileSync(join(dir, "tls.crt"), serving.cert);
  writeFileSync(join(dir, "tls.key"), serving.key);
  sinks = await startSinks({
    victoriaLogsArgs: [
      "-tls",
      `-tlsCertFile=${join(dir, "tls.crt")}`,
      `-tlsKeyFile=${join(dir, "tls.key")}`,
      "-httpAuth.username=bylaw",
      "-httpAuth.password=s3cret",
    ],
  });
});
after(async () => {
  await sinks?.down();
});

async function pushOne(connection: Omit<LokiConnection, "url">, closeMs = 10_000) {
  const problems: string[] = [];
  const loki = new LokiClient({
    connection: { url: sinks.lokiPushUrl, ...connection },
    batchWaitMs: 10,
    backoff: { minMs: 100, maxMs: 300 },
    onProblem: (m) => problems.push(m),
  });
  loki.push({ job: "loki-tls-test" }, { timestampNs: nanosOf(Date.now()), line: "over tls" });
  return { stats: await loki.close(closeMs), problems };
}

test("https with the test CA and basic authentication: the line is taken", async () => {
  assert.match(sinks.lokiPushUrl, /^https:\/\/127\.0\.0\.1:\d+\//);
  const { stats, problems } = await pushOne({
    auth: { basic: { username: "bylaw", password: "s3cret" } },
    tls: { ca: ca.cert },
  });
  assert.equal(stats.sent, 1, problems.join("\n"));
});

test("a wrong password: refused (401), dropped and counted, not retried", async () => {
  const { stats, problems } = await pushOne({
    auth: { basic: { username: "bylaw", password: "nope" } },
    tls: { ca: ca.cert },
  });
  assert.deepEqual([stats.sent, stats.dropped.refused, stats.retries], [0, 1, 0]);
  assert.match(problems.join("\n"), /dropped 1 log entries \(refused\): Loki answered 401/);
});

test("without the CA the server is not trusted: retried until close gives up, then counted", async () => {
  const { stats, problems } = await pushOne({ auth: { basic: { username: "bylaw", password: "s3cret" } } }, 1500);
  assert.equal(stats.sent, 0);
  assert.equal(stats.dropped.shutdown, 1);
  assert.ok(stats.retries > 0);
  assert.match(
    problems.join("\n"),
    /retrying: pushing to 127\.0\.0\.1:\d+ failed: .*(self-signed|unable to verify|issuer)/i,
  );
});

test("insecureSkipVerify (testing only) skips the check", async () => {
  const { stats } = await pushOne({
    auth: { basic: { username: "bylaw", password: "s3cret" } },
    tls: { insecureSkipVerify: true },
  });
  assert.equal(stats.sent, 1);
});
