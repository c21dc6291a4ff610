/**
 * What the cleanup controller asks of the API server (src/controllers/cleanup): whether Bylaw's
 * own ServiceAccount may list and delete a resource (a SelfSubjectAccessReview: any authenticated
 * user may ask about itself), a DELETE with a propagation policy, a cleanup policy's status (a
 * merge patch of its status subresource), and an events.k8s.io/v1 Event. Each throws the client's
 * error (KubeError: its status and the server's message) for the caller to report.
 */
import type { JsonObject } from "../engine/index.js";
import type { KubeClient } from "./kube-client.js";
import { gvrPath, type Gvr } from "./types.js";

type Writer = Pick<KubeClient, "sendJson">;

/** Whether Bylaw's ServiceAccount may `verb` the resource (in `namespace`, or cluster-wide when ""). */
export async function selfCan(client: Writer, verb: string, gvr: Gvr, namespace: string): Promise<boolean> {
  const review = (await client.sendJson("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    spec: {
      resourceAttributes: {
        verb,
        group: gvr.group,
        version: gvr.version,
        resource: gvr.resource,
        ...(namespace !== "" ? { namespace } : {}),
      },
    },
  })) as { status?: { allowed?: boolean } };
  return review.status?.allowed === true;
}

/** Deletes one object; `propagation` undefined leaves the server's default. */
export async function deleteObject(
  client: Writer,
  target: { readonly gvr: Gvr; readonly namespace: string; readonly name: string; readonly propagation?: string },
): Promise<void> {
  const path = `${gvrPath(target.gvr, target.namespace === "" ? undefined : target.namespace)}/${encodeURIComponent(target.name)}`;
  await client.sendJson("DELETE", path, {
    apiVersion: "v1",
    kind: "DeleteOptions",
    ...(target.propagation !== undefined ? { propagationPolicy: target.propagation } : {}),
  });
}

/** Merge-patches a cleanup policy's status subresource (a kyverno.io one unless `gvr` names a DeletingPolicy's). */
export async function patchCleanupStatus(
  client: Writer,
  policy: { readonly namespace: string; readonly name: string; readonly gvr?: Gvr },
  status: JsonObject,
): Promise<void> {
  // A namespaced one is a CleanupPolicy, a cluster-scoped one a ClusterCleanupPolicy.
  const gvr: Gvr = policy.gvr ?? {
    group: "kyverno.io",
    version: "v2",
    resource: policy.namespace !== "" ? "cleanuppolicies" : "clustercleanuppolicies",
  };
  const path = `${gvrPath(gvr, policy.namespace === "" ? undefined : policy.namespace)}/${encodeURIComponent(policy.name)}/status`;
  await client.sendJson("PATCH", path, { status }, { contentType: "application/merge-patch+json" });
}

/** Writes the series (count, last time) of an events.k8s.io/v1 Event Bylaw created, as a merge patch; throws the client's error (404: the Event is gone). */
export async function patchEventSeries(
  client: Writer,
  event: JsonObject & { readonly metadata: JsonObject },
  series: { readonly count: number; readonly lastObservedTime: string },
): Promise<void> {
  const ns = typeof event.metadata["namespace"] === "string" ? event.metadata["namespace"] : "default";
  const name = typeof event.metadata["name"] === "string" ? encodeURIComponent(event.metadata["name"]) : "";
  await client.sendJson(
    "PATCH",
    `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(ns)}/events/${name}`,
    { series },
    { contentType: "application/merge-patch+json", answer: "none" },
  );
}

/** Creates an events.k8s.io/v1 Event (its namespace: the regarding object's, or `default` for a cluster-scoped one). */
export async function createEvent(
  client: Writer,
  event: JsonObject & { readonly metadata: JsonObject },
): Promise<void> {
  const ns = typeof event.metadata["namespace"] === "string" ? event.metadata["namespace"] : "default";
  await client.sendJson("POST", `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(ns)}/events`, event, {
    answer: "none",
  });
}
