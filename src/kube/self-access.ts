/**
 * What the API server's authorizer answers about this client's own identity for one verb on one
 * resource, with its reason (a SelfSubjectAccessReview: any authenticated user may ask about
 * itself). Throws the client's error when the review cannot be made.
 */
import type { KubeClient } from "./kube-client.js";

interface SelfAccessAnswer {
  readonly allowed: boolean;
  /** The authorizer's reason ("" when it gave none, as RBAC does for a denial). */
  readonly reason: string;
}

export async function selfAccess(
  client: Pick<KubeClient, "sendJson">,
  ask: { readonly verb: string; readonly group: string; readonly version: string; readonly resource: string },
): Promise<SelfAccessAnswer> {
  const review = (await client.sendJson("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SelfSubjectAccessReview",
    spec: { resourceAttributes: { ...ask } },
  })) as { status?: { allowed?: boolean; reason?: string } };
  return { allowed: review.status?.allowed === true, reason: review.status?.reason ?? "" };
}
