/**
 * Whether a user may do something to a resource, asked of the API server with a
 * SubjectAccessReview (as Kyverno's `auth.NewCanI` asks it for its controllers' ServiceAccounts:
 * the user name only, no groups; for a policy's author, the whole user info of their request). Bylaw's admission ServiceAccount may create them
 * (deploy/base/rbac/admission-controller.yaml). A failed request throws the client's error.
 * `subjectAccessAllowed` posts any review spec: the `/metrics` check (metrics-access.ts) asks a
 * non-resource path for a reviewed token's user with it.
 */
import type { KubeClient } from "./kube-client.js";

export interface ResourceAccess {
  readonly user: string;
  /** The user's groups, uid and extra, when asking for a user who sent a request (a policy's author); absent for a ServiceAccount. */
  readonly groups?: readonly string[];
  readonly uid?: string;
  readonly extra?: Readonly<Record<string, readonly string[]>>;
  readonly verb: string;
  readonly group: string;
  /** The plural, without the subresource. */
  readonly resource: string;
  readonly subresource: string;
  /** "" for cluster-wide (or every namespace). */
  readonly namespace: string;
  /** One object's name; absent for every object. */
  readonly name?: string;
}

export async function canAccess(client: Pick<KubeClient, "sendJson">, a: ResourceAccess): Promise<boolean> {
  return subjectAccessAllowed(client, {
    user: a.user,
    ...(a.groups !== undefined ? { groups: a.groups } : {}),
    ...(a.uid !== undefined && a.uid !== "" ? { uid: a.uid } : {}),
    ...(a.extra !== undefined ? { extra: a.extra } : {}),
    resourceAttributes: {
      verb: a.verb,
      group: a.group,
      resource: a.resource,
      ...(a.subresource !== "" ? { subresource: a.subresource } : {}),
      ...(a.namespace !== "" ? { namespace: a.namespace } : {}),
      ...(a.name !== undefined && a.name !== "" ? { name: a.name } : {}),
    },
  });
}

/** Whether the API server allows what a SubjectAccessReview `spec` asks (the user, and resource or non-resource attributes). */
export async function subjectAccessAllowed(
  client: Pick<KubeClient, "sendJson">,
  spec: Readonly<Record<string, unknown>>,
): Promise<boolean> {
  return (await subjectAccess(client, spec)).allowed;
}

/** The authorizer's answer to a SubjectAccessReview `spec`, with its reason ("" when it gave none, as RBAC does for a denial). */
export async function subjectAccess(
  client: Pick<KubeClient, "sendJson">,
  spec: Readonly<Record<string, unknown>>,
): Promise<{ readonly allowed: boolean; readonly reason: string }> {
  const review = (await client.sendJson("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec,
  })) as { status?: { allowed?: boolean; reason?: string } };
  return { allowed: review.status?.allowed === true, reason: review.status?.reason ?? "" };
}
