/**
 * Kyverno's CEL `resource.Get` / `resource.List` (policies.kyverno.io kinds) answered from the live
 * caches (live-cluster.ts), as the engine's `getResource` / `listResources` port:
 * - each part of the call (apiVersion, resource plural, namespace, name) is checked on its own (no
 *   `/`, `%`, dot-segment or subresource can be smuggled through a part), the path is built from the
 *   parts and checked by structure as an apiCall path is (api-path.ts), so the same tenant rule holds:
 *   a NamespacedValidatingPolicy reads only its own namespace, never a cluster-scoped or all-namespace
 *   path;
 * - the resource's cache is started on first use (prepare() starts those a policy names literally);
 *   until it has synced the call is an error, as for apiCall;
 * - Get answers the object (with apiVersion and kind) or Kubernetes' not-found text; List answers
 *   `{apiVersion, kind: <Kind>List, metadata, items}` filtered by the label equality selector.
 */
import {
  err,
  ok,
  type ContextCaller,
  type JsonObject,
  type JsonValue,
  type ResourceList,
  type ResourceRead,
  type Result,
} from "../engine/index.js";
import { checkApiCall } from "./api-path.js";
import type { LiveCluster } from "./live-cluster.js";
import { readable } from "./readable-cache.js";
import { gvrKey, type Gvr } from "./types.js";

const API_VERSION = /^(?:([a-z0-9]([-a-z0-9.]*[a-z0-9])?)\/)?(v[0-9]+(?:(?:alpha|beta)[0-9]+)?)$/;
const RESOURCE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const NAMESPACE = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$/;
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.:@]*[A-Za-z0-9])?$/;

interface Target {
  readonly gvr: Gvr;
  readonly namespace: string;
}

/** The checked resource of a call, or why it is refused. `name` undefined: a list. */
function target(
  call: string,
  read: { readonly apiVersion: string; readonly resource: string; readonly namespace: string; readonly name?: string },
  caller: ContextCaller | undefined,
): Result<Target> {
  const { apiVersion, resource, namespace, name } = read;
  const v = API_VERSION.exec(apiVersion);
  if (v === null) return err("refused", `${call}: apiVersion ${JSON.stringify(apiVersion)} is not a group/version`);
  if (!RESOURCE.test(resource) || resource.includes(".."))
    return err(
      "refused",
      `${call}: resource ${JSON.stringify(resource)} is not a plural resource name (subresources are not read)`,
    );
  if (!NAMESPACE.test(namespace) || namespace.length > 63)
    return err("refused", `${call}: namespace ${JSON.stringify(namespace)} is not a namespace name`);
  if (name !== undefined && (!NAME.test(name) || name.length > 253 || name.includes("..")))
    return err("refused", `${call}: name ${JSON.stringify(name)} is not an object name`);
  const gvr: Gvr = { group: v[1] ?? "", version: v[3] ?? "", resource };
  const base = gvr.group === "" ? `/api/${gvr.version}` : `/apis/${gvr.group}/${gvr.version}`;
  const path = `${base}${namespace !== "" ? `/namespaces/${namespace}` : ""}/${resource}${name !== undefined ? `/${name}` : ""}`;
  // The tenant rule, by the path's structure (the same check as an apiCall's).
  const checked = checkApiCall({ urlPath: path, method: "GET" }, caller?.policyNamespace ?? "");
  if (!checked.ok)
    return err(checked.error.kind === "refused" ? "refused" : "context", `${call}: ${checked.error.message}`);
  return ok({ gvr, namespace });
}

export function getResource(
  cluster: LiveCluster,
  request: ResourceRead,
  caller: ContextCaller | undefined,
): Result<JsonValue> {
  const call = `resource.Get(${[request.apiVersion, request.resource, request.namespace, request.name].map((s) => JSON.stringify(s)).join(", ")})`;
  const t = target(call, request, caller);
  if (!t.ok) return t;
  const inf = readable(cluster, t.value.gvr, call, {
    reader: caller?.policyNamespace ?? "",
    namespace: t.value.namespace,
  });
  if (!inf.ok) return inf;
  const obj = inf.value.objectResponse(t.value.namespace, request.name);
  if (obj === undefined)
    return err(
      "context",
      `${request.resource}${t.value.gvr.group === "" ? "" : `.${t.value.gvr.group}`} "${request.name}" not found`,
    );
  return ok(obj);
}

export function listResources(
  cluster: LiveCluster,
  request: ResourceList,
  caller: ContextCaller | undefined,
): Result<JsonValue> {
  const call = `resource.List(${[request.apiVersion, request.resource, request.namespace].map((s) => JSON.stringify(s)).join(", ")})`;
  const t = target(
    call,
    { apiVersion: request.apiVersion, resource: request.resource, namespace: request.namespace },
    caller,
  );
  if (!t.ok) return t;
  const inf = readable(cluster, t.value.gvr, call, {
    reader: caller?.policyNamespace ?? "",
    namespace: t.value.namespace === "" ? undefined : t.value.namespace,
  });
  if (!inf.ok) return inf;
  const list = inf.value.listResponse(t.value.namespace === "" ? undefined : t.value.namespace) as JsonObject;
  const labels = Object.entries(request.labels ?? {});
  if (labels.length === 0) return ok(list);
  const items = (list["items"] as JsonObject[]).filter((o) => {
    const have = (o["metadata"] as { labels?: Record<string, string> } | undefined)?.labels ?? {};
    return labels.every(([k, v]) => have[k] === v);
  });
  return ok({ ...list, items });
}

const CEL_RESOURCE_CALL = /resource\.(?:get|Get|list|List)\(\s*(["'])([^"']+)\1\s*,\s*(["'])([^"']+)\3/g;

/** The resource types CEL expressions name literally in resource.Get/List calls (their caches start at load). */
export function celResourcesRead(specs: readonly JsonValue[]): Gvr[] {
  const out = new Map<string, Gvr>();
  const visit = (v: JsonValue | undefined): void => {
    if (typeof v === "string") {
      for (const m of v.matchAll(CEL_RESOURCE_CALL)) {
        const version = API_VERSION.exec(m[2] ?? "");
        const resource = m[4] ?? "";
        if (version === null || !RESOURCE.test(resource)) continue;
        const gvr = { group: version[1] ?? "", version: version[3] ?? "", resource };
        out.set(gvrKey(gvr), gvr);
      }
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === "object") Object.values(v).forEach(visit);
  };
  specs.forEach(visit);
  return [...out.values()];
}
