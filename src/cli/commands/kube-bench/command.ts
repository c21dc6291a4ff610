/** `bylaw kube-bench`: one node's kube-bench JSON to the Pushgateway and Loki (docs/monitoring.md). */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parseDurationMillis } from "../../../engine/index.js";
import { nanosOf, type LokiConnection } from "../../../platform/loki/index.js";
import type { Io } from "../../io.js";
import { usageLine } from "../../usage.js";
import { checkLines } from "./check-lines.js";
import { KUBE_BENCH_HELP } from "./help.js";
import { kubeBenchExposition } from "./info-metrics.js";
import { readKubeBenchJson, type KubeBenchControls } from "./kube-bench-results.js";
import { LOKI_FLAG_OPTIONS, lokiConnection, lokiLabels, type LokiFlags } from "../../loki-flags.js";
import { runCommand } from "./run-command.js";
import { runOnSchedule } from "./schedule-loop.js";
import { sendKubeBench } from "./send.js";
import { nextRun } from "../../../controllers/cleanup/schedule.js";

/** The most of the command's output read (kube-bench's JSON for one node is well under 1 MiB). */
const MAX_RUN_OUTPUT = 64 * 1024 * 1024;

const OPTIONS = {
  node: { type: "string" },
  pushgateway: { type: "string" },
  job: { type: "string", default: "kube-bench" },
  ...LOKI_FLAG_OPTIONS,
  timeout: { type: "string", default: "60s" },
  "run-timeout": { type: "string", default: "10m" },
  schedule: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** The flags as parsed (defaults filled in). */
export interface KubeBenchFlags extends LokiFlags {
  readonly node?: string | undefined;
  readonly pushgateway?: string | undefined;
  readonly job: string;
  readonly "loki-encoding": string;
  readonly timeout: string;
  readonly "run-timeout": string;
  readonly schedule?: string | undefined;
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

/** What one send needs besides the results: where, for which node, with which labels. */
interface Sender {
  readonly values: KubeBenchFlags;
  /** The command after `--` that writes kube-bench's JSON (empty when it is read from FILEs). */
  readonly command: readonly string[];
  readonly node: string;
  readonly timeoutMs: number;
  readonly labels: Record<string, string>;
  readonly loki: LokiConnection | undefined;
}

function send(sender: Sender, all: KubeBenchControls[], io: Io): Promise<number> | number {
  const { values, node, loki } = sender;
  const exposition = kubeBenchExposition(all, node);
  const lines = checkLines(all, {
    node,
    job: values.job,
    extraLabels: sender.labels,
    timestampNs: nanosOf(Date.now()),
  });
  if (values.pushgateway === undefined && loki === undefined) return dryRun(io, exposition, lines);
  return sendKubeBench({ values, node, timeoutMs: sender.timeoutMs, loki }, { exposition, lines }, io);
}

function durationFlag(name: string, value: string): number {
  const ms = parseDurationMillis(value);
  if (ms === undefined || ms <= 0) throw new UsageError(`--${name} ${value} is not a duration like 30s`);
  return ms;
}

/** kube-bench JSON from the command after `--`, then sent; 1 when the command or its output fails. */
async function runAndSend(sender: Sender, io: Io, signal?: AbortSignal): Promise<number> {
  const output = await runCommand(sender.command, {
    timeoutMs: durationFlag("run-timeout", sender.values["run-timeout"]),
    maxBytes: MAX_RUN_OUTPUT,
    ...(signal !== undefined ? { signal } : {}),
  });
  if (!output.ok) {
    io.err(`bylaw kube-bench: ${output.error}`);
    return 1;
  }
  const read = readKubeBenchJson(output.stdout, `the output of ${sender.command.join(" ")}`);
  if (!read.ok) {
    io.err(`bylaw kube-bench: ${read.error}`);
    return 1;
  }
  return send(sender, [...read.value], io);
}

/** `--schedule`: run and send now and at each tick until SIGTERM or SIGINT; 0 once stopped. */
async function runScheduled(sender: Sender, schedule: string, io: Io): Promise<number> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGTERM", onSignal);
  process.once("SIGINT", onSignal);
  try {
    const ran = await runOnSchedule({
      schedule,
      signal: stop.signal,
      tick: async () => {
        await runAndSend(sender, io, stop.signal);
      },
      onPlanned: (at) => io.err(`bylaw kube-bench: next run at ${new Date(at).toISOString()}`),
    });
    if (!ran.ok) {
      io.err(`bylaw kube-bench: --schedule: ${ran.error}`);
      return 2;
    }
    return 0;
  } finally {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  }
}

async function run(values: KubeBenchFlags, args: { files: string[]; command: string[] }, io: Io): Promise<number> {
  const { files, command } = args;
  if (command.length > 0 && files.length > 0)
    throw new UsageError("give kube-bench's JSON as FILE or as the output of a command after --, not both");
  if (command.length === 0 && files.length === 0)
    throw new UsageError(
      "kube-bench needs a FILE of kube-bench run --json output (- for standard input), or a command after --",
    );
  if (values.schedule !== undefined && command.length === 0)
    throw new UsageError("--schedule needs the command that runs kube-bench at each tick, after --");
  const node = values.node ?? process.env["NODE_NAME"] ?? "";
  if (node === "")
    throw new UsageError(
      "kube-bench's JSON does not name the node: give --node NAME or set NODE_NAME (the Downward API's spec.nodeName)",
    );
  const timeoutMs = durationFlag("timeout", values.timeout);
  durationFlag("run-timeout", values["run-timeout"]);
  if (values.schedule !== undefined) {
    const planned = nextRun(values.schedule, Date.now());
    if (!planned.ok) throw new UsageError(`--schedule: ${planned.error}`);
  }
  const labels = extraLabels(values["loki-label"] ?? []);
  const loki = values.loki !== undefined ? await lokiConnection(values, timeoutMs) : undefined;
  if (typeof loki === "string") throw new UsageError(loki);
  const sender: Sender = { values, command, node, timeoutMs, labels, loki };
  if (values.schedule !== undefined) return runScheduled(sender, values.schedule, io);
  if (command.length > 0) return runAndSend(sender, io);
  const all = await readAll(files, io);
  if (typeof all === "string") {
    io.err(`bylaw kube-bench: ${all}`);
    return 2;
  }
  return send(sender, all, io);
}

export async function kubeBenchCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals, tokens } = parseArgs({ args, allowPositionals: true, options: OPTIONS, tokens: true });
  // Positionals before `--` are FILEs; what follows it is the command that writes kube-bench's JSON.
  const terminator = tokens.find((t) => t.kind === "option-terminator");
  const split =
    terminator === undefined
      ? positionals.length
      : tokens.filter((t) => t.kind === "positional" && t.index < terminator.index).length;
  if (values.help) {
    io.out(KUBE_BENCH_HELP);
    return 0;
  }
  try {
    return await run(values, { files: positionals.slice(0, split), command: positionals.slice(split) }, io);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(usageLine("kube-bench", e.message));
    return 2;
  }
}
