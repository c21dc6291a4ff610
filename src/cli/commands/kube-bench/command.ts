/** `bylaw kube-bench`: one node's kube-bench JSON to the Pushgateway and Loki (docs/monitoring.md). */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parseDurationMillis } from "../../../engine/index.js";
import { nanosOf } from "../../../platform/loki/index.js";
import type { Io } from "../../io.js";
import { usageLine } from "../../usage.js";
import { checkLines } from "./check-lines.js";
import { KUBE_BENCH_HELP } from "./help.js";
import { kubeBenchExposition } from "./info-metrics.js";
import { readKubeBenchJson, type KubeBenchControls } from "./kube-bench-results.js";
import { LOKI_FLAG_OPTIONS, lokiConnection, lokiLabels, type LokiFlags } from "../../loki-flags.js";
import { sendKubeBench } from "./send.js";

const OPTIONS = {
  node: { type: "string" },
  pushgateway: { type: "string" },
  job: { type: "string", default: "kube-bench" },
  ...LOKI_FLAG_OPTIONS,
  timeout: { type: "string", default: "60s" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The flags as parsed (defaults filled in). */
export interface KubeBenchFlags extends LokiFlags {
  readonly node?: string | undefined;
  readonly pushgateway?: string | undefined;
  readonly job: string;
  readonly "loki-encoding": string;
  readonly timeout: string;
}

class UsageError extends Error {}

async function readAll(files: readonly string[], io: Io): Promise<KubeBenchControls[] | string> {
  const all: KubeBenchControls[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = file === "-" ? await io.readStdin() : await readFile(file, "utf8");
    } catch (e) {
      return `${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
    }
    const read = readKubeBenchJson(text, file === "-" ? "<stdin>" : file);
    if (!read.ok) return read.error;
    all.push(...read.value);
  }
  return all;
}

function extraLabels(pairs: readonly string[]): Record<string, string> {
  const labels = lokiLabels(pairs);
  if (typeof labels === "string") throw new UsageError(labels);
  return labels;
}

function dryRun(io: Io, exposition: string, lines: ReturnType<typeof checkLines>): number {
  io.out(`# Pushgateway (PUT /metrics/job/JOB/instance/NODE):\n${exposition}`);
  io.out("# Loki lines (labels, line, structured metadata):");
  for (const l of lines) io.out(JSON.stringify({ labels: l.labels, line: l.entry.line, metadata: l.entry.metadata }));
  return 0;
}

async function run(values: KubeBenchFlags, files: readonly string[], io: Io): Promise<number> {
  if (files.length === 0)
    throw new UsageError("kube-bench needs a FILE of kube-bench run --json output (- for standard input)");
  const node = values.node ?? process.env["NODE_NAME"] ?? "";
  if (node === "")
    throw new UsageError(
      "kube-bench's JSON does not name the node: give --node NAME or set NODE_NAME (the Downward API's spec.nodeName)",
    );
  const timeoutMs = parseDurationMillis(values.timeout);
  if (timeoutMs === undefined || timeoutMs <= 0)
    throw new UsageError(`--timeout ${values.timeout} is not a duration like 30s`);
  const labels = extraLabels(values["loki-label"] ?? []);
  const loki = values.loki !== undefined ? await lokiConnection(values, timeoutMs) : undefined;
  if (typeof loki === "string") throw new UsageError(loki);
  const all = await readAll(files, io);
  if (typeof all === "string") {
    io.err(`bylaw kube-bench: ${all}`);
    return 2;
  }
  const exposition = kubeBenchExposition(all, node);
  const lines = checkLines(all, { node, job: values.job, extraLabels: labels, timestampNs: nanosOf(Date.now()) });
  if (values.pushgateway === undefined && loki === undefined) return dryRun(io, exposition, lines);
  return sendKubeBench({ values, node, timeoutMs, loki }, { exposition, lines }, io);
}

export async function kubeBenchCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: OPTIONS });
  if (values.help) {
    io.out(KUBE_BENCH_HELP);
    return 0;
  }
  try {
    return await run(values, positionals, io);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(usageLine("kube-bench", e.message));
    return 2;
  }
}
