/**
 * The GlobalContextEntries of the cluster (`kyverno.io/v2alpha1`, cluster-scoped), kept by an
 * informer; each entry's data by global-entry.ts. A policy's `globalReference.name` reads
 * `<entry>` or `<entry>.<projection>` (Kyverno's split on the first dot). Status is written back as
 * Kyverno does (the Ready condition, reason Succeeded/Failed, `ready`, `lastRefreshTime`), by the
 * leader only, and only when it changes. Status messages are Bylaw's own texts: an upstream body is
 * never copied into them.
 *
 * The entries are read from a watch of Bylaw's own (LiveCluster.ownInformer), never from the
 * shared cache policies' apiCall and CEL resource reads use: no tenant read can start, stop,
 * replace or fill the loader's cache, and the loader reconciles every entry from its first list on
 * (a shared cache that had already synced once sent no change, and the entries never loaded).
 */
import {
  err,
  isObject,
  parseDurationMillis,
  type JsonObject,
  type JsonValue,
  type Result,
  textOf,
} from "../../engine/index.js";
import type { EgressOptions } from "../egress/egress-client.js";
import type { KubeClient } from "../kube-client.js";
import type { Informer } from "../informer.js";
import type { LiveCluster } from "../live-cluster.js";
import type { KubeObject } from "../types.js";
import {
  apiEntry,
  type Compile,
  type EntryState,
  type GlobalEntry,
  type Projection,
  resourceEntry,
} from "./global-entry.js";

const GLOBAL_CONTEXT_ENTRIES = {
  group: "kyverno.io",
  version: "v2alpha1",
  resource: "globalcontextentries",
} as const;

interface GlobalContextOptions {
  readonly cluster: LiveCluster;
  readonly client: KubeClient;
  readonly egress: EgressOptions;
  /** JMESPath in Kyverno's dialect (the engine's), for projections. */
  readonly compile: () => Compile;
  /** Whether this replica writes shared objects (status); default always. */
  readonly isLeader?: () => boolean;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly onLog?: (level: "info" | "warn", message: string, fields: Record<string, unknown>) => void;
}

interface Kept {
  readonly spec: string;
  readonly generation: number;
  readonly entry: GlobalEntry;
  /** The last status written (or seen), to write only changes. */
  written: string | undefined;
}

export class GlobalContextEntries {
  private readonly entries = new Map<string, Kept | { readonly spec: string; readonly invalid: string }>();

  private unsubscribe: (() => void) | undefined;
  private own: Informer | undefined;
  /** Each entry's status writes, one after another: two PATCHes in flight could land in either order. */
  private readonly writing = new Map<string, Promise<void>>();

  constructor(private readonly options: GlobalContextOptions) {}

  /** Starts watching the entries (once a loaded policy reads a globalReference: the CRD may not be installed otherwise). */
  start(): void {
    if (this.unsubscribe !== undefined) return;
    const inf = this.options.cluster.ownInformer(GLOBAL_CONTEXT_ENTRIES);
    this.own = inf;
    // Few objects: every change of the cache reconciles them all, from what it holds now on.
    this.unsubscribe = inf.onChange(() => this.reconcile(inf.list()));
    if (inf.health().ok) this.reconcile(inf.list());
  }

  private reconcile(objects: readonly KubeObject[]): void {
    const seen = new Set<string>();
    for (const o of objects) {
      const name = o.metadata?.name ?? "";
      seen.add(name);
      this.onEvent("modified", o);
    }
    for (const name of [...this.entries.keys()]) if (!seen.has(name)) this.onEvent("deleted", { metadata: { name } });
  }

  /** `<entry>` or `<entry>.<projection>`: the data, or why not (Kyverno's texts). */
  read(name: string): Result<JsonValue> {
    const dot = name.indexOf(".");
    const entryName = dot < 0 ? name : name.slice(0, dot);
    const projection = dot < 0 ? "" : name.slice(dot + 1);
    if (this.unsubscribe === undefined)
      return err(
        "not-ready",
        `failed to fetch entry key=${entryName}: Bylaw watches GlobalContextEntries once a loaded policy reads a globalReference`,
      );
    const kept = this.entries.get(entryName);
    if (kept === undefined) {
      const h = this.own?.health();
      if (h !== undefined && !h.ok)
        return err(
          "not-ready",
          `failed to fetch entry key=${entryName}: GlobalContextEntries have not synced yet (${h.reason})`,
        );
      return err("context", `failed to fetch entry key=${entryName}`);
    }
    if ("invalid" in kept) return err("context", `global context entry ${entryName} is invalid: ${kept.invalid}`);
    return kept.entry.read(projection);
  }

  close(): void {
    this.unsubscribe?.();
    this.own?.stop();
    for (const k of this.entries.values()) if ("entry" in k) k.entry.stop();
    this.entries.clear();
  }

  private onEvent(event: "added" | "modified" | "deleted", object: KubeObject): void {
    const name = object.metadata?.name ?? "";
    const old = this.entries.get(name);
    if (event === "deleted") {
      if (old !== undefined && "entry" in old) old.entry.stop();
      this.entries.delete(name);
      return;
    }
    const spec = JSON.stringify(object["spec"] ?? null);
    if (old !== undefined && old.spec === spec) {
      if ("entry" in old && old.written === undefined) old.written = statusKey(object["status"]);
      return;
    }
    if (old !== undefined && "entry" in old) old.entry.stop();
    const generation =
      typeof (object.metadata as JsonObject | undefined)?.["generation"] === "number"
        ? ((object.metadata as JsonObject)["generation"] as number)
        : 0;
    const made = this.make(name, object["spec"]);
    if (!made.ok) {
      this.entries.set(name, { spec, invalid: made.error.message });
      this.options.onLog?.("warn", "a GlobalContextEntry is invalid", { entry: name, reason: made.error.message });
      this.writeStatus(name, generation, { ready: false, message: made.error.message }, undefined);
      return;
    }
    const kept: Kept = { spec, generation, entry: made.value, written: statusKey(object["status"]) };
    this.entries.set(name, kept);
    this.options.onLog?.("info", "loaded a GlobalContextEntry", { entry: name });
    this.statusOf(name);
  }

  private make(name: string, spec: JsonValue | undefined): Result<GlobalEntry> {
    if (!isObject(spec)) return err("context", "spec is missing");
    const projections: Projection[] = [];
    for (const p of Array.isArray(spec["projections"]) ? spec["projections"] : []) {
      if (!isObject(p) || typeof p["name"] !== "string" || typeof p["jmesPath"] !== "string")
        return err("context", "a projection needs a name and a jmesPath");
      try {
        projections.push({ name: p["name"], search: this.options.compile()(p["jmesPath"]) });
      } catch (e) {
        return err("context", `failed to parse jmespath query: ${(e as Error).message}`);
      }
    }
    const res = spec["kubernetesResource"];
    if (isObject(res)) {
      if (typeof res["resource"] !== "string" || typeof res["version"] !== "string")
        return err("context", "kubernetesResource needs resource and version");
      const gvr = {
        group: typeof res["group"] === "string" ? res["group"] : "",
        version: res["version"],
        resource: res["resource"],
      };
      const cache = this.options.cluster.informer(gvr);
      const ns = typeof res["namespace"] === "string" ? res["namespace"] : undefined;
      void this.options.cluster.ready().then(() => this.statusOf(name));
      void cache.synced().then(() => this.statusOf(name));
      return { ok: true, value: resourceEntry(cache, () => this.options.cluster.isSynced(gvr), ns, projections) };
    }
    const call = spec["apiCall"];
    if (!isObject(call)) return err("context", "an entry needs kubernetesResource or apiCall");
    const refreshText = typeof call["refreshInterval"] === "string" ? call["refreshInterval"] : "10m";
    const refreshMs = parseDurationMillis(refreshText);
    if (refreshMs === undefined)
      return err("context", `invalid duration ${JSON.stringify(refreshText)} (Go syntax, e.g. 30s, 10m, 1h30m)`);
    const service = isObject(call["service"]) ? call["service"] : undefined;
    if (service !== undefined && typeof service["url"] !== "string")
      return err("context", "apiCall.service needs a url");
    if (service === undefined && typeof call["urlPath"] !== "string")
      return err("context", "apiCall needs urlPath or service");
    const headers =
      service !== undefined && Array.isArray(service["headers"])
        ? service["headers"]
            .filter(isObject)
            .map((h) => ({ key: textOf(h["key"] ?? ""), value: textOf(h["value"] ?? "") }))
        : undefined;
    return {
      ok: true,
      value: apiEntry(
        {
          method: call["method"] === "POST" ? "POST" : "GET",
          ...(typeof call["urlPath"] === "string" ? { urlPath: call["urlPath"] } : {}),
          ...(call["data"] !== undefined ? { data: call["data"] } : {}),
          ...(service !== undefined
            ? {
                service: {
                  url: textOf(service["url"]),
                  ...(typeof service["caBundle"] === "string" ? { caBundle: service["caBundle"] } : {}),
                  ...(headers !== undefined ? { headers } : {}),
                },
              }
            : {}),
          refreshMs: Math.max(1000, refreshMs),
          retryLimit: typeof call["retryLimit"] === "number" ? call["retryLimit"] : 3,
        },
        projections,
        {
          client: this.options.client,
          egress: this.options.egress,
          now: this.options.now ?? Date.now,
          sleep: this.options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms).unref())),
          onRefresh: () => this.statusOf(name),
        },
      ),
    };
  }

  /** Writes the entry's status when it changed (leader only). */
  private statusOf(name: string): void {
    const kept = this.entries.get(name);
    if (kept === undefined || !("entry" in kept)) return;
    const state = kept.entry.state();
    if (!state.ready && state.message === "CacheSyncPending") return;
    this.writeStatus(name, kept.generation, state, kept);
  }

  private writeStatus(name: string, generation: number, state: EntryState, kept: Kept | undefined): void {
    if (!(this.options.isLeader?.() ?? true)) return;
    const now = new Date(this.options.now?.() ?? Date.now());
    const condition = {
      type: "Ready",
      status: state.ready ? "True" : "False",
      reason: state.ready ? "Succeeded" : "Failed",
      message: state.message.slice(0, 32_000),
      observedGeneration: generation,
    };
    const key = JSON.stringify([condition, state.refreshedAt ?? null]);
    if (kept !== undefined && kept.written === key) return;
    if (kept !== undefined) kept.written = key;
    const stamp = now.toISOString().replace(/\.\d+Z$/, "Z");
    const status = {
      ready: state.ready,
      conditions: [{ ...condition, lastTransitionTime: stamp }],
      ...(state.refreshedAt !== undefined
        ? { lastRefreshTime: new Date(state.refreshedAt).toISOString().replace(/\.\d+Z$/, "Z") }
        : {}),
    };
    const path = `/apis/${GLOBAL_CONTEXT_ENTRIES.group}/${GLOBAL_CONTEXT_ENTRIES.version}/${GLOBAL_CONTEXT_ENTRIES.resource}/${encodeURIComponent(name)}/status`;
    const write = (): Promise<void> =>
      this.options.client
        .sendJson("PATCH", path, { status }, { contentType: "application/merge-patch+json" })
        .then(() => undefined)
        .catch((e: unknown) => {
          if (kept !== undefined) kept.written = undefined;
          this.options.onLog?.("warn", "could not write a GlobalContextEntry's status", {
            entry: name,
            reason: (e as Error).message,
          });
        });
    const next = (this.writing.get(name) ?? Promise.resolve()).then(write);
    this.writing.set(name, next);
    void next.then(() => {
      if (this.writing.get(name) === next) this.writing.delete(name);
    });
  }
}

/** The part of a status compared to decide whether to write (the condition without its time). */
function statusKey(status: JsonValue | undefined): string | undefined {
  if (!isObject(status) || !Array.isArray(status["conditions"])) return undefined;
  const c = status["conditions"].find((x) => isObject(x) && x["type"] === "Ready");
  if (!isObject(c)) return undefined;
  const refreshed = typeof status["lastRefreshTime"] === "string" ? Date.parse(status["lastRefreshTime"]) : null;
  return JSON.stringify([
    {
      type: "Ready",
      status: c["status"],
      reason: c["reason"],
      message: c["message"],
      observedGeneration: c["observedGeneration"],
    },
    refreshed,
  ]);
}
