/** An engine wired with offline ports: the system clock, crypto hashing, and mocked cluster data. */
import { createEngine, type Engine, isObject, type JsonValue } from "../../engine/index.js";
import { cryptoRandom, nodeHasher, systemClock } from "../../platform/node-ports.js";
import type { TestSpec } from "../test-suite/test-file.js";
import { offlineContextSources, offlineHosts, type MockedApiCall } from "./offline-context.js";

export function offlineEngine(spec?: TestSpec): Engine {
  const apiCalls: MockedApiCall[] = [];
  const globalEntries: Record<string, JsonValue> = {};
  for (const m of spec?.apiCallResponses ?? []) {
    const response = isObject(m["response"]) ? m["response"] : {};
    apiCalls.push({
      ...(typeof m["urlPath"] === "string" ? { urlPath: m["urlPath"] } : {}),
      ...(typeof m["url"] === "string" ? { url: m["url"] } : {}),
      ...(typeof m["method"] === "string" ? { method: m["method"] } : {}),
      statusCode: typeof response["statusCode"] === "number" ? response["statusCode"] : 200,
      body: response["body"] ?? null,
    });
  }
  for (const g of spec?.globalContextEntries ?? []) {
    if (typeof g["name"] === "string" && g["data"] !== undefined) globalEntries[g["name"]] = g["data"];
  }
  return createEngine({
    clock: systemClock,
    random: cryptoRandom,
    hasher: nodeHasher,
    context: offlineContextSources({ apiCalls, globalEntries }),
    hosts: offlineHosts,
  });
}
