/**
 * The API server's discovery documents (`/api`, `/api/v1`, `/apis`, `/apis/<group>/<version>`):
 * which resources it serves, their kind, plural, scope and verbs, and each group's preferred
 * version. `bylaw apply --cluster` finds what to list from it, as Kyverno's CLI does through
 * client-go discovery (`FindResources`). A group version that does not answer (an aggregated API
 * that is down) is left out with a warning naming it.
 */
import type { KubeClient } from "./kube-client.js";

export interface ServedResource {
  readonly group: string;
  readonly version: string;
  /** Plural name; a subresource is `<plural>/<sub>` (e.g. `deployments/scale`). */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  /** Whether `version` is the group's preferred version. */
  readonly preferred: boolean;
}

export interface Discovery {
  readonly resources: readonly ServedResource[];
  readonly warnings: readonly string[];
}

type ResourceList = { resources?: { name?: unknown; kind?: unknown; namespaced?: unknown; verbs?: unknown }[] };
type GroupList = {
  groups?: { name?: unknown; versions?: { version?: unknown }[]; preferredVersion?: { version?: unknown } }[];
};

/** Reads discovery; throws the client's error when the core documents (`/api/v1`, `/apis`) cannot be read. */
export async function discover(client: KubeClient): Promise<Discovery> {
  const warnings: string[] = [];
  const [core, groups] = await Promise.all([
    client.getJson("/api/v1") as Promise<ResourceList>,
    client.getJson("/apis") as Promise<GroupList>,
  ]);
  const versions: { group: string; version: string; preferred: boolean }[] = [];
  for (const g of groups.groups ?? []) {
    if (typeof g.name !== "string") continue;
    const preferred = g.preferredVersion?.version;
    for (const v of g.versions ?? [])
      if (typeof v.version === "string")
        versions.push({ group: g.name, version: v.version, preferred: v.version === preferred });
  }
  const lists = await Promise.all(
    versions.map(async (gv) => {
      try {
        return await discoverGroupVersion(client, gv);
      } catch (e) {
        warnings.push(
          `discovery: /apis/${gv.group}/${gv.version} did not answer (${(e as Error).message}); its kinds are not listed`,
        );
        return [];
      }
    }),
  );
  const resources = [...servedIn(core, { group: "", version: "v1", preferred: true }), ...lists.flat()];
  return { resources, warnings };
}

/** One group version's discovery document (`/api/v1` for the core group); throws the client's error. */
export async function discoverGroupVersion(
  client: KubeClient,
  gv: { group: string; version: string; preferred: boolean },
): Promise<ServedResource[]> {
  const path =
    gv.group === ""
      ? `/api/${encodeURIComponent(gv.version)}`
      : `/apis/${encodeURIComponent(gv.group)}/${encodeURIComponent(gv.version)}`;
  return servedIn((await client.getJson(path)) as ResourceList, gv);
}

function servedIn(list: ResourceList, gv: { group: string; version: string; preferred: boolean }): ServedResource[] {
  const out: ServedResource[] = [];
  for (const r of list.resources ?? []) {
    if (typeof r.name !== "string" || typeof r.kind !== "string") continue;
    const verbs = Array.isArray(r.verbs) ? r.verbs.filter((v): v is string => typeof v === "string") : [];
    out.push({
      group: gv.group,
      version: gv.version,
      resource: r.name,
      kind: r.kind,
      namespaced: r.namespaced === true,
      verbs,
      preferred: gv.preferred,
    });
  }
  return out;
}

/** A selector from a policy: a kind (Kyverno's kind selector, parsed) or a resource (plural) with group and version; `*` wildcards. */
export type ResourceSelector =
  | {
      readonly by: "kind";
      readonly group: string;
      readonly version: string;
      readonly kind: string;
      readonly subresource: string;
    }
  | { readonly by: "resource"; readonly group: string; readonly version: string; readonly resource: string };

/**
 * The top-level listable resources a selector names. A `*` (or absent) version takes the group's
 * preferred version, so a kind served in two versions is listed once; an explicit version takes that one.
 */
export function selectServed(discovery: Discovery, s: ResourceSelector): ServedResource[] {
  const found = discovery.resources.filter((r) => {
    if (r.resource.includes("/") || !r.verbs.includes("list")) return false;
    if (!glob(s.group, r.group)) return false;
    if (s.version === "*" ? !r.preferred : !glob(s.version, r.version)) return false;
    return s.by === "kind" ? glob(s.kind, r.kind) : glob(s.resource, r.resource);
  });
  return found;
}

/** `*` matches any run of characters, `?` one; anything else is itself. */
export function glob(pattern: string, value: string): boolean {
  if (pattern === "*") return true;
  if (!/[*?]/.test(pattern)) return pattern === value;
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    "s",
  );
  return re.test(value);
}
