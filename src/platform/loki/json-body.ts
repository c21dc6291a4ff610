/** Loki's JSON push body (POST /loki/api/v1/push, Content-Type: application/json). */
import type { LokiStream } from "./loki-stream.js";

/** `{"streams":[{"stream":{…},"values":[["<ns>","line"],["<ns>","line",{metadata}]]}]}`; times are decimal strings. */
export function jsonPushBody(streams: readonly LokiStream[]): string {
  return JSON.stringify({
    streams: streams.map((s) => ({
      stream: s.labels,
      values: s.entries.map((e) =>
        e.metadata !== undefined && Object.keys(e.metadata).length > 0
          ? [String(e.timestampNs), e.line, e.metadata]
          : [String(e.timestampNs), e.line],
      ),
    })),
  });
}
