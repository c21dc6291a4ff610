/**
 * Where each kind the generate controller reads or writes lives in the API: its collection path
 * and scope, from discovery, read again when a kind is not found: at once when the kind's own group
 * version now lists it (one request, at most every 2 s per group version: a CRD installed a moment
 * before a policy naming it is found then), else at most every 30 s.
 */
import {
  discover,
  discoverGroupVersion,
  type Discovery,
  selectServed,
  type ServedResource,
} from "../../kube/discovery.js";
import type { KubeClient } from "../../kube/kube-client.js";

const REFRESH_MS = 30_000;
/** How often a kind not found may make Bylaw read its group version's discovery document. */
const CHECK_MS = 2_000;

interface KindPath {
  readonly resource: ServedResource;
  /** The collection path in `namespace` ("" for a cluster-scoped kind, or all namespaces). */
  collection(namespace: string): string;
  object(namespace: string, name: string): string;
}

export class KindPaths {
  private discovery: Discovery | undefined;
  private readAt = -Infinity;
  private readonly checkedAt = new Map<string, number>();

  constructor(
    private readonly client: KubeClient,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The kind's paths; an empty apiVersion (a cloneList kind written without one) takes the preferred version. */
  async resolve(apiVersion: string, kind: string): Promise<KindPath | undefined> {
    const found = this.find(apiVersion, kind);
    if (found !== undefined) return found;
    if (this.now() - this.readAt < REFRESH_MS) {
      const [group = "", version = ""] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
      const listed = (r: ServedResource): boolean => r.kind === kind && !r.resource.includes("/");
      if (!(await this.newlyServed(group, version, listed))) return undefined;
    }
    await this.read();
    return this.find(apiVersion, kind);
  }

  /**
   * The listable resources a matchConstraints resource rule names, `*` in any of group, version and
   * resource included (discovery's selectServed; read again when older than 30 s): a `*` version
   * takes the group's preferred one, so no object is listed twice; subresources (`pods/status`)
   * name no objects of their own and are left out.
   */
  async listable(group: string, version: string, resource: string): Promise<KindPath[]> {
    if (resource.includes("/")) return [];
    if (this.discovery === undefined || this.now() - this.readAt >= REFRESH_MS) await this.read();
    const selector = { by: "resource", group, version, resource } as const;
    const found = this.served(selector);
    if (found.length > 0 || [group, version, resource].some((p) => p.includes("*"))) return found;
    if (!(await this.newlyServed(group, version, (r) => r.resource === resource))) return found;
    await this.read();
    return this.served(selector);
  }

  private served(selector: Parameters<typeof selectServed>[1]): KindPath[] {
    return selectServed(this.discovery ?? { resources: [], warnings: [] }, selector).map(pathsOf);
  }

  private async read(): Promise<void> {
    this.discovery = await discover(this.client);
    this.readAt = this.now();
  }

  /**
   * Whether the group version's discovery document now lists what the cached discovery lacks (a
   * CRD installed since it was read); at most one read per group version every CHECK_MS, and a
   * document that cannot be read (not served yet, the API server busy) says no.
   */
  private async newlyServed(group: string, version: string, listed: (r: ServedResource) => boolean): Promise<boolean> {
    if (version === "") return false;
    const key = `${group}/${version}`;
    if (this.now() - (this.checkedAt.get(key) ?? -Infinity) < CHECK_MS) return false;
    this.checkedAt.set(key, this.now());
    try {
      return (await discoverGroupVersion(this.client, { group, version, preferred: false })).some(listed);
    } catch {
      return false;
    }
  }

  /** Whether a kind is namespaced, from what discovery returned last (undefined: not served or not read yet). */
  namespaced(apiVersion: string, kind: string): boolean | undefined {
    return this.find(apiVersion, kind)?.resource.namespaced;
  }

  private find(apiVersion: string, kind: string): KindPath | undefined {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
    const served = (this.discovery?.resources ?? []).filter(
      (r) =>
        r.kind === kind &&
        !r.resource.includes("/") &&
        (apiVersion === "" ? r.preferred : r.group === group && r.version === version),
    );
    const r = served[0];
    return r === undefined ? undefined : pathsOf(r);
  }
}

function pathsOf(r: ServedResource): KindPath {
  const base = r.group === "" ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const collection = (namespace: string): string =>
    r.namespaced && namespace !== ""
      ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.resource}`
      : `${base}/${r.resource}`;
  return {
    resource: r,
    collection,
    object: (namespace, name) => `${collection(namespace)}/${encodeURIComponent(name)}`,
  };
}
