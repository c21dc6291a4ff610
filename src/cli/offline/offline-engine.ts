/** The engine for `bylaw test` and `bylaw apply`: the library's offline engine, fed a test's mocked cluster data. */
import { isObject, type Engine, type JsonValue } from "../../engine/index.js";
import { createOfflineEngine } from "../../library/offline-engine.js";
import type { MockedApiCall } from "../../platform/offline-context.js";
import type { ImageDataSource } from "../../platform/registry/registry-access.js";
import type { SuiteCluster } from "../test-suite/context-file.js";
import type { TestSpec } from "../test-suite/test-file.js";

/** `registry`: `--registry`'s access, for imageRegistry entries and CEL image.GetMetadata. */
export function offlineEngine(spec?: TestSpec, cluster?: SuiteCluster, registry?: ImageDataSource): Engine {
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
  return createOfflineEngine({
    apiCalls,
    globalEntries,
    ...(cluster !== undefined ? { resources: cluster.resources, images: cluster.images } : {}),
    ...(registry !== undefined ? { registry } : {}),
  });
}
