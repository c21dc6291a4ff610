/**
 * One GlobalContextEntry's data (kyverno.io, issue 22 section 3), as Kyverno keeps it:
 * - `kubernetesResource`: the objects of a resource type (optionally one namespace), from the shared
 *   informer cache of that type, as a list of objects;
 * - `apiCall`: the answer of a call refreshed every `refreshInterval` (default 10m) with up to
 *   `retryLimit` attempts (default 3): `urlPath` to the API server (GET, or POST with `data`) or a
 *   `service` call through the egress filter (no token, no upstream body in any message).
 * `projections` (JMESPath, compiled once) are computed once per refresh (per cache change for a
 * resource entry). `read("")` is the whole data; `read(p)` a projection; a projection that gives
 * null is "no data available", as in Kyverno.
 */
import { err, ok, type JsonValue, type Result } from "../../engine/index.js";
import { parseApiPath } from "../api-path.js";
import { callService, type EgressOptions } from "../egress/egress-client.js";
import type { Informer } from "../informer.js";
import type { KubeClient } from "../kube-client.js";
import { dataOf } from "../live-calls.js";

export type Compile = (expression: string) => (data: JsonValue) => JsonValue;

/** A projection, compiled once when the entry is created. */
export interface Projection {
  readonly name: string;
  readonly search: (data: JsonValue) => JsonValue;
}

export interface EntryState {
  readonly ready: boolean;
  /** Kyverno's condition message: CacheSyncSuccess / Ready, or why not. */
  readonly message: string;
  /** When an apiCall entry last refreshed successfully (epoch ms). */
  readonly refreshedAt?: number;
}

export interface GlobalEntry {
  read(projection: string): Result<JsonValue>;
  state(): EntryState;
  stop(): void;
}

function projected(data: JsonValue, projections: readonly Projection[]): Result<Map<string, JsonValue>> {
  const out = new Map<string, JsonValue>([["", data]]);
  for (const p of projections) {
    try {
      out.set(p.name, p.search(data));
    } catch (e) {
      return err("context", `projection ${p.name}: ${(e as Error).message}`);
    }
  }
  return ok(out);
}

function pick(values: Map<string, JsonValue>, projection: string): Result<JsonValue> {
  const v = values.get(projection);
  return v === undefined || v === null ? err("context", "no data available") : ok(v);
}

/** A `kubernetesResource` entry over a shared informer cache. */
export function resourceEntry(
  informer: Informer,
  isSynced: () => boolean,
  namespace: string | undefined,
  projections: readonly Projection[],
): GlobalEntry {
  const scope = namespace === "" ? undefined : namespace;
  let memo: { version: string; values: Result<Map<string, JsonValue>> } | undefined;
  const values = (): Result<Map<string, JsonValue>> => {
    const version = informer.resourceVersion;
    if (memo === undefined || memo.version !== version)
      memo = {
        version,
        values: projected(informer.list(namespace === "" ? undefined : namespace), projections),
      };
    return memo.values;
  };
  return {
    read: (projection) => {
      if (!isSynced()) return err("not-ready", `the ${informer.name} cache has not synced yet`);
      // The entry's namespace only: another namespace over its share of the cache does not stop it.
      const h = informer.health(scope);
      if (!h.ok) return err("not-ready", h.reason);
      const v = values();
      return v.ok ? pick(v.value, projection) : v;
    },
    state: () => {
      // Not listed yet is pending, not a failure: a status written then would say Failed until the next change.
      if (!isSynced()) return { ready: false, message: "CacheSyncPending" };
      return informer.health(scope).ok
        ? { ready: true, message: "CacheSyncSuccess" }
        : { ready: false, message: "CacheSyncFailure" };
    },
    stop: () => undefined,
  };
}

interface ApiEntrySpec {
  readonly urlPath?: string;
  readonly method: "GET" | "POST";
  readonly data?: JsonValue;
  readonly service?: {
    readonly url: string;
    readonly caBundle?: string;
    readonly headers?: readonly { key: string; value: string }[];
  };
  readonly refreshMs: number;
  readonly retryLimit: number;
}

interface ApiEntryDeps {
  readonly client: KubeClient;
  readonly egress: EgressOptions;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Called after every refresh (the status writer). */
  readonly onRefresh: () => void;
}

/** An `apiCall` entry: refreshed now, then every `refreshMs`. */
export function apiEntry(spec: ApiEntrySpec, projections: readonly Projection[], deps: ApiEntryDeps): GlobalEntry {
  let values: Result<Map<string, JsonValue>> = err(
    "not-ready",
    "no data available: the first call has not answered yet",
  );
  let state: EntryState = { ready: false, message: "the first call has not answered yet" };
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = async (): Promise<void> => {
    let answer: Result<JsonValue> = err("context", "no attempt");
    for (let attempt = 0; attempt < Math.max(1, spec.retryLimit) && !stopped; attempt++) {
      if (attempt > 0) await deps.sleep(Math.min(10_000, 10 * 5 ** attempt));
      answer = await fetchOnce(spec, deps);
      if (answer.ok) break;
    }
    if (stopped) return;
    if (answer.ok) {
      values = projected(answer.value, projections);
      state = values.ok
        ? { ready: true, message: "Ready", refreshedAt: deps.now() }
        : { ready: false, message: values.error.message };
    } else {
      values = answer;
      state = { ready: false, message: answer.error.message };
    }
    deps.onRefresh();
    timer = setTimeout(() => void refresh(), spec.refreshMs);
    timer.unref?.();
  };
  void refresh();
  return {
    read: (projection) => (values.ok ? pick(values.value, projection) : values),
    state: () => state,
    stop: () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

async function fetchOnce(spec: ApiEntrySpec, deps: ApiEntryDeps): Promise<Result<JsonValue>> {
  if (spec.service !== undefined) {
    const body = spec.method === "POST" ? JSON.stringify(dataOf(spec.data)) : undefined;
    return callService(
      {
        method: spec.method,
        url: spec.service.url,
        ...(spec.service.headers !== undefined ? { headers: spec.service.headers } : {}),
        ...(spec.service.caBundle !== undefined && spec.service.caBundle !== ""
          ? { caBundle: spec.service.caBundle }
          : {}),
        ...(body !== undefined ? { body } : {}),
      },
      deps.egress,
    );
  }
  const parsed = parseApiPath(spec.urlPath ?? "");
  if (!parsed.ok) return parsed;
  const path = parsed.value.path;
  try {
    return ok(
      (spec.method === "POST"
        ? await deps.client.sendJson("POST", path, dataOf(spec.data))
        : await deps.client.getJson(path)) as JsonValue,
    );
  } catch (e) {
    return err("context", `failed to ${spec.method} resource with raw url: ${path}: ${(e as Error).message}`);
  }
}
