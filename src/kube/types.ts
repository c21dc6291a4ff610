/** Shapes shared by the Kubernetes client, its configuration and the informers. */
import type { JsonObject } from "../engine/index.js";

/** How to reach and authenticate to one API server. */
export interface KubeConnection {
  /** `https://host:port` (no trailing slash). */
  readonly server: string;
  /** PEM CA bundle to trust; absent: the system roots. */
  readonly ca?: string;
  readonly insecureSkipTlsVerify?: boolean;
  readonly tlsServerName?: string;
  /** PEM client certificate and key. */
  readonly cert?: string;
  readonly key?: string;
  /** The bearer token to send now (re-read per request: a file-backed token rotates). */
  readonly token?: () => string | undefined;
  /** Where the connection came from, for messages ("kubeconfig /x, context y", "in-cluster"). */
  readonly origin: string;
}

/** A Kubernetes object as JSON, with the metadata informers use. */
export type KubeObject = JsonObject & {
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly labels?: Record<string, string>;
  };
};

/** A resource type: `/api/v1/pods` is { group: "", version: "v1", resource: "pods" }. */
export interface Gvr {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export function gvrPath(gvr: Gvr, namespace?: string): string {
  const base = gvr.group === "" ? `/api/${gvr.version}` : `/apis/${gvr.group}/${gvr.version}`;
  return namespace === undefined
    ? `${base}/${gvr.resource}`
    : `${base}/namespaces/${encodeURIComponent(namespace)}/${gvr.resource}`;
}

export function gvrKey(gvr: Gvr): string {
  return gvr.group === "" ? `${gvr.resource}.${gvr.version}` : `${gvr.resource}.${gvr.version}.${gvr.group}`;
}
