/**
 * A real Prometheus for tests (scripts/prometheus.sh: Debian's package, unpacked into a cache, on
 * loopback): start it scraping some targets, run PromQL against it, stop it by its pid.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const script = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "scripts", "prometheus.sh");

/** One series of a PromQL instant query: its labels and its value. */
export interface PromSeries {
  readonly metric: Record<string, string>;
  readonly value: number;
}

export interface Prometheus {
  readonly url: string;
  /** An instant query; throws with Prometheus' error when the query is refused. */
  query(promql: string): Promise<PromSeries[]>;
  close(): Promise<void>;
}

function runScript(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(script, [...args], { timeout: 300_000 }, (error, stdout, stderr) =>
      done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
    );
  });
}

/** The folder holding `prometheus` and `promtool` (fetched on first use), or why there is none. */
export async function prometheusBin(): Promise<{ ok: true; dir: string } | { ok: false; why: string }> {
  const r = await runScript(["install"]);
  return r.code === 0 ? { ok: true, dir: r.stdout.trim() } : { ok: false, why: r.stderr.trim() };
}

/** Starts Prometheus scraping `targets` (host:port) every second, with `rules` (YAML) loaded when given. */
export async function startPrometheus(targets: readonly string[], rules?: string): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), "bylaw-prometheus-"));
  if (rules !== undefined) writeFileSync(join(dir, "rules.yml"), rules);
  const up = await runScript(["up", dir, ...targets]);
  if (up.code !== 0) throw new Error(`scripts/prometheus.sh up failed: ${up.stderr}`);
  const url = readFileSync(join(dir, "prometheus.env"), "utf8")
    .trim()
    .replace(/^PROMETHEUS_URL=/, "");
  return {
    url,
    query: async (promql) => {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as {
        status: string;
        error?: string;
        data?: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== "success") throw new Error(`PromQL ${promql} refused: ${body.error ?? res.status}`);
      return (body.data?.result ?? []).map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    close: async () => {
      await runScript(["down", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
