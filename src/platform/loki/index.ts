/** Pushing log lines to Loki (or anything that speaks its push API): one client, batching and retrying. */
export { LokiClient, type LokiEncoding } from "./loki-client.js";
export type { LokiAuth, LokiConnection, LokiTls } from "./push-connection.js";
export { nanosOf, type LokiEntry } from "./loki-stream.js";
