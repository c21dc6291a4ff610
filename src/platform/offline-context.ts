/**
 * Answers for context entries without a cluster, as `kyverno test` / `kyverno apply` give them:
 * apiCall from mocked responses (a test's `apiCallResponses`, `createBylaw`'s `apiCalls`),
 * globalReference from given entries (a test's `globalContextEntries`, `createBylaw`'s
 * `globalContext`); everything else is "unavailable" (the entry is not loaded, and a value for the
 * same name may come from a values file instead; without one the rule is an error naming it).
 */
import { type ApiCallRequest, type ContextSources, err, type HostResolver, type JsonValue, ok, type Result } from "../engine/index.js";

export interface MockedApiCall {
  readonly urlPath?: string;
  readonly url?: string;
  readonly method?: string;
  readonly statusCode: number;
  readonly body: JsonValue;
}

export interface OfflineContextOptions {
  readonly apiCalls?: readonly MockedApiCall[];
  readonly globalEntries?: Readonly<Record<string, JsonValue>>;
}

const UNAVAILABLE = "no cluster connection: the value must come from a values file";

export function offlineContextSources(options: OfflineContextOptions = {}): ContextSources {
  return {
    canLoad: (kind) =>
      (kind === "apiCall" && (options.apiCalls?.length ?? 0) > 0) ||
      (kind === "globalReference" && Object.keys(options.globalEntries ?? {}).length > 0),
    configMap: (namespace, name) => err("unavailable", `configMap ${namespace}/${name}: ${UNAVAILABLE}`),
    apiCall: (req: ApiCallRequest): Result<JsonValue> => {
      const mock = (options.apiCalls ?? []).find(
        (m) => (m.method ?? "GET") === req.method && ((req.urlPath !== undefined && m.urlPath === req.urlPath) || (req.serviceUrl !== undefined && m.url === req.serviceUrl)),
      );
      if (!mock) return err("unavailable", `apiCall ${req.urlPath ?? req.serviceUrl ?? ""}: ${UNAVAILABLE}`);
      if (mock.statusCode < 200 || mock.statusCode > 299) return err("api-call", `HTTP ${mock.statusCode}: ${JSON.stringify(mock.body)}`);
      return ok(mock.body);
    },
    globalReference: (name) => {
      const v = options.globalEntries?.[name];
      return v === undefined ? err("unavailable", `global context entry ${name}: ${UNAVAILABLE}`) : ok(v);
    },
    imageData: (reference) => err("unavailable", `image data for ${reference}: no registry access offline`),
    // A rule reading data nothing gave is an error naming the entry, never a pass on a default.
    unloadable: "error",
  };
}

/** Offline, `is_external_url` cannot resolve names: a host name counts as external. */
export const offlineHosts: HostResolver = { isExternalHost: () => ok(true) };
