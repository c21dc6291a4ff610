/** Namespace facts for one cleanup run (namespaceSelector, CEL's namespaceObject), read once per namespace. */
import type { KubeClient } from "../../kube/kube-client.js";
import { type NamespaceFacts, NO_NAMESPACE, readNamespaceFacts } from "../namespace-facts.js";

/** A namespace that cannot be read has no labels and no object, as before the run knew of it. */
export function namespaceFactsReader(
  client: Pick<KubeClient, "getJson">,
): (namespace: string) => Promise<NamespaceFacts> {
  const seen = new Map<string, Promise<NamespaceFacts>>();
  return (namespace) => {
    let facts = seen.get(namespace);
    if (facts === undefined) {
      facts = readNamespaceFacts(client, namespace).catch(() => NO_NAMESPACE);
      seen.set(namespace, facts);
    }
    return facts;
  };
}
