/** The flags that bound what `bylaw serve` holds (connections, bytes, memory, metrics) and the TLS it speaks. */
import { readFile } from "node:fs/promises";
import { DEFAULT_MAX_CONNECTIONS } from "../../../server/http/index.js";
import type { ResourceBounds } from "../../../server/app/types.js";
import { tlsPolicyFrom } from "../../../server/tls/index.js";
import { JSON_LIMIT_FLAG_OPTIONS, jsonLimitsFrom } from "./json-limit-flags.js";
import { containerMemoryLimit, defaultInFlightBytes, parseByteSize } from "./memory-limit.js";

export const RESOURCE_FLAG_OPTIONS = {
  "max-connections": { type: "string", default: String(DEFAULT_MAX_CONNECTIONS) },
  "max-inflight-bytes": { type: "string" },
  "memory-limit": { type: "string" },
  "metrics-max-bytes": { type: "string", default: "4Mi" },
  "metrics-max-namespaces": { type: "string", default: "200" },
  "tls-min-version": { type: "string", default: "1.2" },
  "tls-cipher-suites": { type: "string" },
  "client-ca": { type: "string" },
  ...JSON_LIMIT_FLAG_OPTIONS,
} as const;

type Values = { readonly [K in keyof typeof RESOURCE_FLAG_OPTIONS]?: string | undefined };

export async function resourceBounds(
  values: Values,
  maxBodyBytes: number,
  cgroupLimit: () => number | undefined = containerMemoryLimit,
): Promise<{ ok: true; value: ResourceBounds } | { ok: false; error: string }> {
  const count = (flag: "max-connections" | "metrics-max-namespaces"): number | string => {
    const n = Number(values[flag]);
    return Number.isInteger(n) && n > 0
      ? n
      : `--${flag} must be a positive whole number (got ${JSON.stringify(values[flag])})`;
  };
  const bytes = (flag: "max-inflight-bytes" | "memory-limit" | "metrics-max-bytes"): number | undefined | string => {
    const text = values[flag];
    if (text === undefined) return undefined;
    const n = parseByteSize(text);
    return n !== undefined && n > 0
      ? n
      : `--${flag} must be a size in bytes, e.g. 268435456 or 256Mi (got ${JSON.stringify(text)})`;
  };
  const maxConnections = count("max-connections");
  const metricsMaxNamespaces = count("metrics-max-namespaces");
  const inFlight = bytes("max-inflight-bytes");
  const memory = bytes("memory-limit");
  const metricsMax = bytes("metrics-max-bytes");
  for (const v of [maxConnections, metricsMaxNamespaces, inFlight, memory, metricsMax])
    if (typeof v === "string") return { ok: false, error: v };
  const tls = tlsPolicyFrom(values["tls-min-version"], values["tls-cipher-suites"]);
  if (!tls.ok) return tls;
  const jsonLimits = jsonLimitsFrom(values);
  if (!jsonLimits.ok) return jsonLimits;
  let clientCa: string | undefined;
  const caFile = values["client-ca"];
  if (caFile !== undefined) {
    try {
      clientCa = await readFile(caFile, "utf8");
    } catch (e) {
      return { ok: false, error: `--client-ca ${caFile}: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (!clientCa.includes("-----BEGIN CERTIFICATE-----"))
      return { ok: false, error: `--client-ca ${caFile}: no PEM certificate in it` };
  }
  const memoryLimitBytes = (memory as number | undefined) ?? cgroupLimit();
  return {
    ok: true,
    value: {
      maxConnections: maxConnections as number,
      maxInFlightBytes: (inFlight as number | undefined) ?? defaultInFlightBytes(memoryLimitBytes, maxBodyBytes),
      memoryLimitBytes,
      metricsMaxBytes: (metricsMax as number | undefined) ?? 4 * 1024 * 1024,
      metricsMaxNamespaces: metricsMaxNamespaces as number,
      tlsPolicy: tls.value,
      clientCa,
      jsonLimits: jsonLimits.value,
    },
  };
}
