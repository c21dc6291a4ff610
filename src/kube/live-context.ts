/**
 * The engine's ContextSources port answered from the live caches (live-cluster.ts), synchronously,
 * as the pure engine needs:
 * - `configMap`: the ConfigMap cache; `{data, metadata}` as Kyverno stores it. An empty namespace
 *   is the policy's own, or `default` for a ClusterPolicy; a namespaced Policy reads only its own.
 * - `apiCall` with `urlPath`, GET: the path is parsed strictly (api-path.ts), a namespaced Policy is
 *   confined to its namespace, and the resource the path names is answered from its cache, as the
 *   API server would answer a LIST (`{kind: "PodList", items}`) or a GET of one object. A resource
 *   seen for the first time starts its cache; until it has synced the entry is an error.
 * - CEL `resource.Get/List` (getResource/listResources): from the same caches, with the same tenant
 *   rule (resource-read.ts).
 * - `apiCall` POST (a ClusterPolicy's), `service` calls and CEL `http.Get/Post` (a cluster-wide
 *   policy's; refused for a namespaced one): network calls made once per review (live-calls.ts,
 *   docs/adr/0012); `globalReference`: the GlobalContextEntries (global-context/);
 *   image data: registry calls made once per review through the egress filter (registry/, ADR 0015).
 * Errors carry Kyverno's texts where Kyverno has one. Refusals, unsynced caches, pending calls and
 * forms Bylaw does not read (subresources, discovery paths) are errors an `apiCall.default`
 * never replaces (ports.ts CONTEXT_ERRORS_WITHOUT_DEFAULT); a call that failed (not found) takes
 * the default, as in Kyverno.
 */
import {
  type JsonValue,
  err,
  ok,
  type Result,
  type ApiCallRequest,
  type ContextCaller,
  type ContextSources,
} from "../engine/index.js";
import { checkApiCall, checkConfigMapNamespace } from "./api-path.js";
import { liveImageData, type LiveRegistry } from "./registry/live-image-data.js";
import { callHttpOnce, callServiceOnce, postToApiServer, type NetworkCalls } from "./live-calls.js";
import { CONFIGMAPS, type LiveCluster } from "./live-cluster.js";
import { getResource, listResources } from "./resource-read.js";
import { readable } from "./readable-cache.js";

/** What the live context reads besides the caches: network calls (live-calls.ts) and GlobalContextEntries. */
interface LiveExtras {
  readonly calls?: NetworkCalls;
  /** `<entry>` or `<entry>.<projection>` from the GlobalContextEntries (global-context/). */
  readonly globals?: { read(name: string): Result<JsonValue> };
  /** Image registries (imageRegistry entries, CEL image.GetMetadata), through the egress filter. */
  readonly registry?: LiveRegistry;
}

export function liveContextSources(cluster: LiveCluster, extras: LiveExtras = {}): ContextSources {
  const { calls, globals, registry } = extras;
  return {
    unloadable: "error",
    canLoad: (kind) =>
      kind === "configMap" ||
      kind === "apiCall" ||
      (kind === "globalReference" && globals !== undefined) ||
      (kind === "imageRegistry" && registry !== undefined),
    configMap: (namespace, name, caller) => configMap(cluster, namespace, name, caller),
    apiCall: (request, caller) => apiCall(cluster, calls, request, caller),
    globalReference: (name, caller) => {
      const ns = caller?.policyNamespace ?? "";
      if (ns !== "")
        return err(
          "refused",
          `a namespaced Policy (namespace "${ns}") may not read a globalReference (GlobalContextEntries are cluster-wide)`,
        );
      return globals === undefined
        ? err("unavailable", "globalReference is not loaded by Bylaw's live context here")
        : globals.read(name);
    },
    imageData: (reference, request) => liveImageData(registry, reference, request ?? { form: "metadata" }),
    getResource: (request, caller) => getResource(cluster, request, caller),
    listResources: (request, caller) => listResources(cluster, request, caller),
  };
}

function configMap(
  cluster: LiveCluster,
  namespace: string,
  name: string,
  caller: ContextCaller | undefined,
): Result<JsonValue> {
  const ns = checkConfigMapNamespace(namespace, caller?.policyNamespace ?? "");
  if (!ns.ok) return ns;
  const what = `failed to get configmap ${ns.value}/${name}`;
  const inf = readable(cluster, CONFIGMAPS, what, {
    reader: caller?.policyNamespace ?? "",
    namespace: ns.value,
  });
  if (!inf.ok) return inf;
  const obj = inf.value.get(ns.value, name);
  if (obj === undefined) return err("context", `${what} : configmaps "${name}" not found`);
  return ok({ data: obj["data"] ?? null, metadata: obj.metadata ?? {} });
}

function apiCall(
  cluster: LiveCluster,
  calls: NetworkCalls | undefined,
  request: ApiCallRequest,
  caller: ContextCaller | undefined,
): Result<JsonValue> {
  const policyNamespace = caller?.policyNamespace ?? "";
  const serviceUrl = request.serviceUrl;
  if (request.form === "http" && serviceUrl !== undefined)
    return callHttpOnce(calls, { ...request, serviceUrl }, policyNamespace);
  if (serviceUrl !== undefined && policyNamespace === "") return callServiceOnce(calls, { ...request, serviceUrl });
  const checked = checkApiCall(request, policyNamespace);
  if (!checked.ok) return checked;
  const path = checked.value.path;
  if (request.method === "POST") return postToApiServer(calls, path, request);
  const failed = `failed to ${request.method} resource with raw url: ${path}`;
  const r = checked.value.resource;
  if (r === undefined || r.subresource !== undefined) {
    return err(
      "unsupported",
      `${failed}: Bylaw's live context answers paths that name a resource list or one object (/api/v1/[namespaces/<ns>/]<resource>[/<name>], /apis/<group>/<version>/…), not discovery paths or subresources`,
    );
  }
  const inf = readable(cluster, { group: r.group, version: r.version, resource: r.resource }, failed, {
    reader: policyNamespace,
    // One object: its namespace ("" when cluster-scoped); a list: its namespace, or every one.
    namespace: r.name !== undefined ? (r.namespace ?? "") : r.namespace,
  });
  if (!inf.ok) return inf;
  if (r.name === undefined) return ok(inf.value.listResponse(r.namespace));
  const obj = inf.value.objectResponse(r.namespace ?? "", r.name);
  if (obj === undefined)
    return err("context", `${failed}: ${r.resource}${r.group === "" ? "" : `.${r.group}`} "${r.name}" not found`);
  return ok(obj);
}
