/** Sending one node's kube-bench results: the Pushgateway group, then the Loki lines. */
import { LokiClient, type LokiConnection } from "../../../platform/loki/index.js";
import { replaceGroup } from "../../../platform/pushgateway/index.js";
import type { Io } from "../../io.js";
import type { CheckLine } from "./check-lines.js";
import type { KubeBenchFlags } from "./command.js";

interface Target {
  readonly values: KubeBenchFlags;
  readonly node: string;
  readonly timeoutMs: number;
  readonly loki: LokiConnection | undefined;
}

/** Pushes every line, retrying until `timeoutMs`; what was sent and dropped, and the last problem seen. */
async function sendLines(connection: LokiConnection, encoding: string, lines: readonly CheckLine[], timeoutMs: number) {
  let lastProblem = "";
  const loki = new LokiClient({
    connection,
    encoding: encoding === "json" ? "json" : "protobuf",
    bufferEntries: Math.max(lines.length, 1),
    backoff: { minMs: 500, maxMs: 5000 },
    onProblem: (m) => (lastProblem = m),
  });
  for (const l of lines) loki.push(l.labels, l.entry);
  const stats = await loki.close(timeoutMs);
  return { stats, lastProblem };
}

export async function sendKubeBench(
  target: Target,
  payload: { readonly exposition: string; readonly lines: readonly CheckLine[] },
  io: Io,
): Promise<number> {
  let failed = false;
  const { values, node, timeoutMs, loki } = target;
  if (values.pushgateway !== undefined) {
    const problem = await replaceGroup(
      { url: values.pushgateway, job: values.job, grouping: { instance: node }, timeoutMs },
      payload.exposition,
    );
    if (problem !== undefined) {
      io.err(`bylaw kube-bench: ${problem}`);
      failed = true;
    } else io.err(`bylaw kube-bench: pushed node ${node} to the Pushgateway (job ${values.job})`);
  }
  if (loki !== undefined) {
    const { stats, lastProblem } = await sendLines(loki, values["loki-encoding"], payload.lines, timeoutMs);
    const dropped = Object.entries(stats.dropped).filter(([, n]) => n > 0);
    if (dropped.length > 0) {
      const counts = dropped.map(([reason, n]) => `${n} ${reason}`).join(", ");
      io.err(
        `bylaw kube-bench: ${stats.sent} of ${payload.lines.length} lines reached Loki (not sent: ${counts}); last problem: ${lastProblem}`,
      );
      failed = true;
    } else io.err(`bylaw kube-bench: sent ${stats.sent} check lines to Loki`);
  }
  return failed ? 1 : 0;
}
