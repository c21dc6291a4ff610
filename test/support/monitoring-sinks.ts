/**
 * The real Pushgateway and VictoriaLogs of `scripts/monitoring/sinks.sh`, started on loopback for
 * a test file, with the queries that read back what Bylaw pushed: the Pushgateway's /metrics, and
 * VictoriaLogs' LogsQL (it receives Loki's push API; a Loki tenant "N" is its AccountID N).
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const script = join(repoRoot, "scripts", "monitoring", "sinks.sh");

type SinkName = "pushgateway" | "victorialogs";

export interface Sinks {
  readonly dir: string;
  readonly pushgatewayUrl: string;
  readonly victoriaLogsUrl: string;
  /** The Loki push endpoint VictoriaLogs serves. */
  readonly lokiPushUrl: string;
  stop(name: SinkName): Promise<void>;
  /** Starts it again on the same port and data, and waits until it is ready. */
  start(name: SinkName): Promise<void>;
  down(): Promise<void>;
}

function sh(args: readonly string[], timeoutMs: number, env: NodeJS.ProcessEnv = {}): Promise<void> {
  return new Promise((done, fail) => {
    execFile(script, [...args], { timeout: timeoutMs, env: { ...process.env, ...env } }, (error, _stdout, stderr) => {
      if (error === null) done();
      else fail(new Error(`scripts/monitoring/sinks.sh ${args.join(" ")} failed: ${error.message}\n${stderr}`));
    });
  });
}

/**
 * `sinks.sh up` in a new temporary folder; the first run fetches and builds (about a minute).
 * `victoriaLogsArgs`: more VictoriaLogs flags, e.g. -tls and -httpAuth.* (with -tls its URL is https).
 */
export async function startSinks(options: { victoriaLogsArgs?: readonly string[] } = {}): Promise<Sinks> {
  const dir = mkdtempSync(join(tmpdir(), "bylaw-sinks-"));
  await sh(["up", dir], 15 * 60_000, { BYLAW_VICTORIALOGS_ARGS: (options.victoriaLogsArgs ?? []).join(" ") });
  const env = Object.fromEntries(
    readFileSync(join(dir, "sinks.env"), "utf8")
      .split("\n")
      .filter((l) => l.includes("="))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
  const victoriaLogsUrl = env["VICTORIALOGS_URL"] ?? "";
  return {
    dir,
    pushgatewayUrl: env["PUSHGATEWAY_URL"] ?? "",
    victoriaLogsUrl,
    lokiPushUrl: `${victoriaLogsUrl}/insert/loki/api/v1/push`,
    stop: (name) => sh(["stop", dir, name], 60_000),
    start: (name) => sh(["start", dir, name], 120_000),
    down: async () => {
      await sh(["down", dir], 60_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The Pushgateway's /metrics exposition text. */
export async function pushgatewayMetrics(sinks: Sinks): Promise<string> {
  const res = await fetch(`${sinks.pushgatewayUrl}/metrics`);
  return res.text();
}

/** The sample lines of one metric in an exposition text, e.g. `kube_bench_info{...} 1`. */
export function sampleLines(exposition: string, metric: string): string[] {
  return exposition.split("\n").filter((l) => l.startsWith(`${metric}{`) || l.startsWith(`${metric} `));
}

export type LogRow = Readonly<Record<string, string>>;

/** The rows a LogsQL query returns (each a flat object: _msg, _time, _stream and every field). */
export async function queryLogs(sinks: Sinks, query: string, accountId = 0): Promise<LogRow[]> {
  const res = await fetch(`${sinks.victoriaLogsUrl}/select/logsql/query`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", AccountID: String(accountId) },
    body: new URLSearchParams({ query, limit: "100000" }).toString(),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`LogsQL ${query} failed: ${res.status} ${text}`);
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as LogRow);
}

/** Polls a LogsQL query until it returns at least `count` rows (VictoriaLogs flushes about every second). */
export async function waitForLogs(
  sinks: Sinks,
  query: string,
  options: { count: number; accountId?: number; timeoutMs?: number },
): Promise<LogRow[]> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const rows = await queryLogs(sinks, query, options.accountId ?? 0);
    if (rows.length >= options.count || Date.now() > deadline) return rows;
    await new Promise((r) => setTimeout(r, 300));
  }
}
