/**
 * Where each kind the generate controller reads or writes lives in the API: its collection path
 * and scope, from discovery (read again, at most every 30 s, when a kind is not found: a CRD
 * installed after start is found then).
 */
import { discover, type Discovery, selectServed, type ServedResource } from "../../kube/discovery.js";
import type { KubeClient } from "../../kube/kube-client.js";

const REFRESH_MS = 30_000;

interface KindPath {
  readonly resource: ServedResource;
  /** The collection path in `namespace` ("" for a cluster-scoped kind, or all namespaces). */
  collection(namespace: string): string;
  object(namespace: string, name: string): string;
}

export class KindPaths {
  private discovery: Discovery | undefined;
  private readAt = -Infinity;

  constructor(
    private readonly client: KubeClient,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** The kind's paths; an empty apiVersion (a cloneList kind written without one) takes the preferred version. */
  async resolve(apiVersion: string, kind: string): Promise<KindPath | undefined> {
    const found = this.find(apiVersion, kind);
    if (found !== undefined || this.now() - this.readAt < REFRESH_MS) return found;
    this.discovery = await discover(this.client);
    this.readAt = this.now();
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
    if (this.discovery === undefined || this.now() - this.readAt >= REFRESH_MS) {
      this.discovery = await discover(this.client);
      this.readAt = this.now();
    }
    return selectServed(this.discovery, { by: "resource", group, version, resource }).map(pathsOf);
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
