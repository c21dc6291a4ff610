/** A capturing pino destination for the logging tests. */
import type { DestinationStream } from "pino";

export interface Capture extends DestinationStream {
  readonly lines: string[];
  /** Each line parsed as JSON. */
  readonly records: () => Record<string, unknown>[];
}

export function capture(): Capture {
  const lines: string[] = [];
  return {
    lines,
    write: (msg: string) => {
      lines.push(msg);
    },
    records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
