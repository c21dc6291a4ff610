/**
 * What a background evaluation needs of a resource's Namespace: its labels (namespaceSelector,
 * `namespaces` in exceptions) and the object itself, CEL's `namespaceObject` with its annotations,
 * spec and status, as Kyverno's controllers give their CEL engines the Namespace from its lister.
 * The generate, mutate-existing, reports and cleanup controllers all read it here.
 */
import { isObject, resourceLabels, type Resource } from "../engine/index.js";
import { KubeError, type KubeClient } from "../kube/kube-client.js";

export interface NamespaceFacts {
  readonly namespaceLabels: Readonly<Record<string, string>>;
  /** Absent for a cluster-scoped resource or a namespace that does not exist. */
  readonly namespaceObject?: Resource;
}

/** A cluster-scoped resource's, or a namespace that is not there: no labels, no object. */
export const NO_NAMESPACE: NamespaceFacts = { namespaceLabels: {} };

/** The facts of a Namespace as the API server or a cache gives it (listed items have no kind). */
export function namespaceFacts(namespace: Resource | undefined): NamespaceFacts {
  if (namespace === undefined) return NO_NAMESPACE;
  return {
    namespaceLabels: resourceLabels(namespace),
    namespaceObject: { ...namespace, apiVersion: "v1", kind: "Namespace" },
  };
}

/**
 * The facts a Namespace gives about itself (its labels for namespaceSelector, itself as
 * `namespaceObject`, as Kyverno's resolver gives its copy); undefined for any other object.
 */
export function ownNamespaceFacts(resource: Resource): NamespaceFacts | undefined {
  return resource["apiVersion"] === "v1" && resource["kind"] === "Namespace" ? namespaceFacts(resource) : undefined;
}

/** Reads one Namespace: a 404 is none; any other failure is the client's error. */
export async function readNamespaceFacts(
  client: Pick<KubeClient, "getJson">,
  namespace: string,
): Promise<NamespaceFacts> {
  if (namespace === "") return NO_NAMESPACE;
  try {
    const ns = await client.getJson(`/api/v1/namespaces/${encodeURIComponent(namespace)}`);
    return namespaceFacts(isObject(ns) ? ns : undefined);
  } catch (e) {
    if (e instanceof KubeError && e.status === 404) return NO_NAMESPACE;
    throw e;
  }
}

/** Every Namespace's facts by name, from one listing. */
export function namespaceFactsByName(list: { readonly items?: readonly Resource[] }): Map<string, NamespaceFacts> {
  const out = new Map<string, NamespaceFacts>();
  for (const ns of list.items ?? []) {
    const meta = isObject(ns["metadata"]) ? ns["metadata"] : {};
    if (typeof meta["name"] === "string") out.set(meta["name"], namespaceFacts(ns));
  }
  return out;
}
