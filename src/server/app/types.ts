/** What the server process is built with, beyond its options: the bounds it holds to and the scrape check. */
import type { MetricsAccess } from "../../kube/metrics-access.js";
import type { ViewerReads } from "../../kube/viewer-reads.js";
import type { JsonLimits } from "../http/index.js";
import type { TlsPolicy } from "../tls/index.js";

/** What `bylaw serve` holds (connections, bytes, memory, metrics) and the TLS it speaks (cli/commands/serve/resource-flags.ts). */
export interface ResourceBounds {
  readonly maxConnections: number;
  readonly maxInFlightBytes: number;
  /** The container's memory limit (from --memory-limit or the cgroup); undefined when there is none. */
  readonly memoryLimitBytes: number | undefined;
  readonly metricsMaxBytes: number;
  readonly metricsMaxNamespaces: number;
  readonly tlsPolicy: TlsPolicy;
  readonly clientCa: string | undefined;
  /** What one request body may hold, checked on its text before it is parsed (json-limit-flags.ts). */
  readonly jsonLimits: JsonLimits;
}

/** `--metrics-auth token`: the check each scrape's Authorization header is put to (cli/commands/serve/metrics-auth-flags.ts). */
/** `bylaw serve --ui-port`: the report UI's port and the reads it makes with each viewer's token (docs/adr/0022-report-ui.md). */
export interface UiSettings {
  /** 0: any free port. */
  readonly port: number;
  readonly reads: ViewerReads;
}

export interface MetricsAuth {
  /** Asked with each scrape's Authorization header. */
  readonly authorize: (authorization: string | undefined) => Promise<MetricsAccess>;
  close(): void;
}
