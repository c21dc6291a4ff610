/** Namespace labels for one cleanup run (namespaceSelector in match/exclude), read once per namespace. */
import { isObject } from "../../engine/index.js";
import type { KubeClient } from "../../kube/kube-client.js";

export function namespaceLabelsReader(
  client: Pick<KubeClient, "getJson">,
): (namespace: string) => Promise<Readonly<Record<string, string>>> {
  const seen = new Map<string, Promise<Record<string, string>>>();
  return (namespace) => {
    if (namespace === "") return Promise.resolve({});
    let labels = seen.get(namespace);
    if (labels === undefined) {
      labels = client.getJson(`/api/v1/namespaces/${encodeURIComponent(namespace)}`).then(
        (ns) => {
          const meta = isObject(ns) && isObject(ns["metadata"]) ? ns["metadata"] : {};
          const l = isObject(meta["labels"]) ? meta["labels"] : {};
          return Object.fromEntries(Object.entries(l).filter((e): e is [string, string] => typeof e[1] === "string"));
        },
        () => ({}),
      );
      seen.set(namespace, labels);
    }
    return labels;
  };
}
