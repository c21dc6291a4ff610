/**
 * Lists the objects of one resource from the API server, in pages (`limit`/`continue`), once: no
 * watch, no cache. Each item gets its `apiVersion` and `kind` back (a list's items carry neither),
 * as Kyverno's CLI sets them on what it fetches for `kyverno apply --cluster`.
 */
import type { JsonObject } from "../engine/index.js";
import type { KubeClient } from "./kube-client.js";
import type { ServedResource } from "./discovery.js";
import { gvrPath } from "./types.js";

const PAGE = 500;

/** Every object of `r` (in `namespace` when given and `r` is namespaced); throws the client's error. `onPage` counts the requests. */
export async function listObjects(
  client: KubeClient,
  r: ServedResource,
  namespace?: string,
  onPage?: () => void,
): Promise<JsonObject[]> {
  const base = gvrPath(r, r.namespaced ? namespace : undefined);
  const apiVersion = r.group === "" ? r.version : `${r.group}/${r.version}`;
  const out: JsonObject[] = [];
  let cont = "";
  do {
    const q = new URLSearchParams({ limit: String(PAGE) });
    if (cont !== "") q.set("continue", cont);
    onPage?.();
    const page = (await client.getJson(`${base}?${q.toString()}`)) as {
      metadata?: { continue?: unknown };
      items?: unknown;
    };
    const items = Array.isArray(page.items) ? page.items : [];
    for (const item of items) {
      if (item !== null && typeof item === "object" && !Array.isArray(item))
        out.push({ apiVersion, kind: r.kind, ...(item as JsonObject) });
    }
    cont = typeof page.metadata?.continue === "string" ? page.metadata.continue : "";
  } while (cont !== "");
  return out;
}

/** Where a list reads, for messages: `pods in all namespaces`, `pods in namespace shop`, `nodes`. */
export function listScope(r: ServedResource, namespace?: string): string {
  const name = r.group === "" ? r.resource : `${r.resource}.${r.group}`;
  if (!r.namespaced) return name;
  return namespace === undefined ? `${name} in all namespaces` : `${name} in namespace ${namespace}`;
}
