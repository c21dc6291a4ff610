/** What the resource bounds came to, for the start-up log line. */
import { getHeapStatistics } from "node:v8";
import { heapBudgetBytes } from "../http/index.js";
import type { ResourceBounds } from "./types.js";

export function describeBounds(b: ResourceBounds): Record<string, unknown> {
  const heapLimit = getHeapStatistics().heap_size_limit;
  return {
    memoryLimitBytes: b.memoryLimitBytes ?? "none",
    v8HeapLimitBytes: heapLimit,
    heapBudgetBytes: heapBudgetBytes(heapLimit, b.memoryLimitBytes),
    maxInFlightBytes: b.maxInFlightBytes,
    maxConnections: b.maxConnections,
    tlsMinVersion: b.tlsPolicy.minVersion,
    clientCertificates: b.clientCa === undefined ? "not required" : "required",
    jsonLimits: b.jsonLimits,
  };
}
