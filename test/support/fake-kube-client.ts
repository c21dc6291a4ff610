/**
 * A KubeClient over a table of answers, as the controller tests use it: a GET of a path in
 * `answers` (its query left out) returns the answer, a GET of a list by label selector returns no
 * items, any other GET is a 404 KubeError; writes answer `{}`. Every call is recorded in `calls`
 * as `METHOD path`.
 */
import { KubeError, type KubeClient } from "../../src/kube/kube-client.js";

export function fakeKubeClient(answers: Readonly<Record<string, unknown>>, calls: string[] = []): KubeClient {
  return {
    getJson: (path: string): Promise<unknown> => {
      calls.push(`GET ${path}`);
      if (path.includes("labelSelector")) return Promise.resolve({ items: [] });
      const answer = answers[path.replace(/\?.*$/, "")];
      return answer === undefined
        ? Promise.reject(new KubeError(`GET ${path}: not found`, 404, "NotFound"))
        : Promise.resolve(answer);
    },
    sendJson: (method: string, path: string): Promise<unknown> => {
      calls.push(`${method} ${path}`);
      return Promise.resolve({});
    },
  } as unknown as KubeClient;
}

const CORE_VERBS = ["get", "list", "watch", "create", "update", "patch", "delete"];

/** Discovery answers for `fakeKubeClient`: core v1 serving Namespaces and ConfigMaps, no other group. */
export const CORE_DISCOVERY: Readonly<Record<string, unknown>> = {
  "/api/v1": {
    resources: [
      { name: "namespaces", kind: "Namespace", namespaced: false, verbs: CORE_VERBS },
      { name: "configmaps", kind: "ConfigMap", namespaced: true, verbs: CORE_VERBS },
    ],
  },
  "/apis": { groups: [] },
};
