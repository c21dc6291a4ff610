/**
 * An AdmissionReview request as the engine sees it (Kyverno `pkg/webhooks/resource/handlers.go`,
 * `pkg/engine/policycontext/policy_context.go`): the object (the old object for DELETE), the old object for UPDATE, the operation, the subresource, the user with the roles and
 * cluster roles the cluster grants them, and the namespace's labels for namespaceSelector.
 *
 * The rule context's `request` carries the review's own fields (uid, kind, resource, name,
 * namespace, dryRun, options, userInfo.extra) over the engine's defaults.
 * Namespace labels follow Kyverno's webhook: none for a Namespace itself or a cluster-scoped object.
 * The kind matched is the request's GVK (`request.kind`, or for a subresource the kind of the
 * top-level resource `request.resource` names), as Kyverno takes it from the request and API
 * discovery: an object whose body claims another kind is still matched as what the API server says.
 * A subresource's object stays what the API server sent (a Scale, an Eviction, a Pod with its
 * ephemeral containers): the parent kind rides beside it (`EngineRequest.matchKind`), as in Kyverno.
 */
import {
  type AnyCompiledException,
  type CompiledPolicy,
  type EngineRequest,
  type GroupVersionKind,
  type JsonObject,
  type RequestUserInfo,
  resourceKind,
  resourceName,
  resourceNamespace,
} from "../../engine/index.js";
import type { ClusterFacts, ReviewFacts } from "../types.js";
import type { AdmissionDeps } from "./deps.js";
import type { ResourceId } from "./denial-message.js";
import { topLevelKind } from "./top-level-kind.js";
import type { AdmissionRequestJson, GroupVersionKindJson } from "./types.js";

export interface AdmissionSubject extends ReviewFacts {
  /** The request as handed to the engine. */
  readonly engineRequest: EngineRequest;
  /** The object the request is about, as sent: `object`, or `oldObject` for DELETE. */
  readonly object: JsonObject;
  /**
   * Kind, namespace and name of that object as Kyverno's denial text and failure-action overrides read
   * them: from the object alone (a PodExecOptions has no metadata, so `PodExecOptions//`).
   */
  readonly objectId: ResourceId;
  /** The request's kind, and the namespace and name for logs and metrics (falling back to the review's own name and namespace). */
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The review's operation (with kind, namespace and dryRun: the labels of its rule results). */
  readonly operation: string;
  readonly dryRun: boolean;
  /** The request's namespace when the cluster facts do not know it (its labels are unknown). */
  readonly unknownNamespace?: string;
}

/** The exceptions a review honours: the loaded ones, and the namespaces they may live in. */
export interface RequestExceptions {
  readonly exceptions: readonly AnyCompiledException[];
  readonly namespaces?: readonly string[];
}

export function exceptionsOf(
  deps: Pick<AdmissionDeps, "policies" | "exceptionNamespaces">,
): RequestExceptions | undefined {
  const exceptions = deps.policies().exceptions;
  if (exceptions === undefined || exceptions.length === 0) return undefined;
  return deps.exceptionNamespaces !== undefined ? { exceptions, namespaces: deps.exceptionNamespaces } : { exceptions };
}

const NO_ROLES = { roles: [], clusterRoles: [] } as const;

export function buildRequest(
  request: AdmissionRequestJson,
  cluster: ClusterFacts,
  policies: readonly CompiledPolicy[],
  exceptions?: RequestExceptions,
): AdmissionSubject {
  const isDelete = request.operation === "DELETE";
  const sent = (isDelete ? request.oldObject : request.object) ?? {};
  const kind = request.kind.kind;
  const namespace = resourceNamespace(sent) || (request.namespace ?? "");
  const name = resourceName(sent) || (request.name ?? "");
  const view = (o: JsonObject): JsonObject => (hasKind(o, request.kind) ? o : withKind(o, request.kind));
  // Roles are asked for only when a policy or an exception of this review may read them.
  const askRoles = (exceptions?.exceptions.length ?? 0) > 0 || cluster.needsRoles?.(policies) !== false;
  const roles = askRoles
    ? cluster.roles({ username: request.userInfo.username, groups: request.userInfo.groups })
    : NO_ROLES;
  const userInfo: RequestUserInfo = {
    username: request.userInfo.username,
    groups: request.userInfo.groups,
    roles: roles.roles,
    clusterRoles: roles.clusterRoles,
    ...(request.userInfo.uid !== undefined ? { uid: request.userInfo.uid } : {}),
    ...(request.userInfo.extra !== undefined ? { extra: request.userInfo.extra } : {}),
  };
  const old = isDelete
    ? view(sent)
    : request.operation === "UPDATE" && request.oldObject
      ? view(request.oldObject)
      : undefined;
  const [dryRun, ns] = [request.dryRun === true, namespaceLabels(request, cluster, namespace)];
  const engineRequest: EngineRequest = {
    resource: isDelete ? {} : view(sent),
    ...(old !== undefined ? { oldResource: old } : {}),
    operation: request.operation,
    userInfo,
    ...(request.subResource ? { subresource: request.subResource } : {}),
    ...parentKindOf(request, policies),
    namespaceLabels: ns.labels,
    ...namespaceObjectOf(request, cluster, namespace),
    variables: { request: requestContext(request, userInfo, name, dryRun) },
    ...(exceptions !== undefined ? { exceptions: exceptions.exceptions } : {}),
    ...(exceptions?.namespaces !== undefined ? { exceptionNamespaces: exceptions.namespaces } : {}),
  };
  const objectId: ResourceId = {
    kind: resourceKind(sent) || kind,
    namespace: resourceNamespace(sent),
    name: resourceName(sent),
  };
  const subject: AdmissionSubject = {
    engineRequest,
    object: sent,
    objectId,
    kind,
    namespace,
    name,
    operation: request.operation,
    dryRun,
  };
  return ns.unknown === undefined ? subject : { ...subject, unknownNamespace: ns.unknown };
}

/**
 * The labels of the request's namespace, and the namespace when the cluster facts do not know it:
 * its labels are then only `kubernetes.io/metadata.name`, which the API server always sets, and a
 * rule selecting by any other label cannot be evaluated (namespace-facts.ts).
 */
function namespaceLabels(
  request: AdmissionRequestJson,
  cluster: ClusterFacts,
  namespace: string,
): { labels: Readonly<Record<string, string>>; unknown?: string } {
  const ns = request.namespace || namespace;
  if (request.kind.kind === "Namespace" || ns === "") return NO_LABELS;
  const labels = cluster.namespaceLabels(ns);
  return labels !== undefined ? { labels } : { labels: { [NAME_LABEL]: ns }, unknown: ns };
}

/** The request's Namespace as the cluster facts hold it, for CEL's `namespaceObject` (none: the engine builds one from the labels). */
function namespaceObjectOf(
  request: AdmissionRequestJson,
  cluster: ClusterFacts,
  namespace: string,
): { namespaceObject?: JsonObject } {
  const ns = request.namespace || namespace;
  if (request.kind.kind === "Namespace" || ns === "" || cluster.namespaceObject === undefined) return {};
  const object = cluster.namespaceObject(ns);
  return object === undefined ? {} : { namespaceObject: object };
}

const NAME_LABEL = "kubernetes.io/metadata.name";
const NO_LABELS = { labels: {} };

function hasKind(o: JsonObject, gvk: GroupVersionKindJson): boolean {
  return o["kind"] === gvk.kind && o["apiVersion"] === apiVersionOf(gvk);
}

function apiVersionOf(gvk: GroupVersionKindJson): string {
  return gvk.group === "" ? gvk.version : `${gvk.group}/${gvk.version}`;
}

/**
 * The kind rules match the request as (`EngineRequest.matchKind`), with the resource (plural) it
 * addresses, which resource rules (a ValidatingPolicy's `matchConstraints`) match by, a custom
 * resource's too: a subresource request's parent kind, else the request's own kind.
 */
function parentKindOf(
  request: AdmissionRequestJson,
  policies: readonly CompiledPolicy[],
): { matchKind?: GroupVersionKind } {
  const parent = topLevelKind(request, request.kind.kind, policies);
  const addressed = request.resource;
  if (addressed === undefined) return parent === undefined ? {} : { matchKind: parent };
  const resource = addressed.resource;
  if (parent !== undefined) return { matchKind: { ...parent, resource } };
  // A subresource of a kind Bylaw cannot name (a custom resource's scale): matched by the resource's
  // group, version and plural, as resource rules read, the object's own kind kept.
  return request.subResource
    ? { matchKind: { group: addressed.group, version: addressed.version, kind: request.kind.kind, resource } }
    : { matchKind: { ...request.kind, resource } };
}

/** The object with the request's apiVersion/kind (filled in when missing, replacing whatever the body claims). */
function withKind(o: JsonObject, gvk: GroupVersionKindJson): JsonObject {
  return { ...o, apiVersion: apiVersionOf(gvk), kind: gvk.kind };
}

/** `request` in the rule context: the review's fields, as Kyverno adds the whole AdmissionRequest. */
function requestContext(
  request: AdmissionRequestJson,
  user: RequestUserInfo,
  name: string,
  dryRun: boolean,
): JsonObject {
  const isDelete = request.operation === "DELETE";
  const userInfo: JsonObject = {
    username: user.username,
    groups: [...user.groups],
    ...(user.uid !== undefined ? { uid: user.uid } : {}),
    ...(user.extra !== undefined
      ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) }
      : {}),
  };
  const ctx: JsonObject = {
    uid: request.uid,
    kind: gvkJson(request.kind),
    requestKind: gvkJson(request.requestKind ?? request.kind),
    operation: request.operation,
    object: isDelete ? null : (request.object ?? null),
    oldObject: request.oldObject ?? null,
    userInfo,
    roles: [...user.roles],
    clusterRoles: [...user.clusterRoles],
    namespace: request.namespace ?? "",
    name: request.name ?? name,
    subResource: request.subResource ?? "",
    dryRun,
  };
  if (request.resource !== undefined) ctx["resource"] = { ...request.resource };
  if (request.requestResource !== undefined) ctx["requestResource"] = { ...request.requestResource };
  if (request.requestSubResource !== undefined) ctx["requestSubResource"] = request.requestSubResource;
  if (request.options !== undefined) ctx["options"] = request.options;
  return ctx;
}

function gvkJson(g: GroupVersionKindJson): JsonObject {
  return { group: g.group, version: g.version, kind: g.kind };
}
