/**
 * The JSON context every rule starts from: `request.*`, `serviceAccountName`, `serviceAccountNamespace`
 * and `images`. Rule context entries and CLI values are layered on top of a copy of it.
 */
import type { JsonObject, JsonValue } from "../api/json.js";
import {
  resourceKind,
  resourceName,
  resourceNamespace,
  parseApiVersion,
  requestSubject,
  type Operation,
  type RequestUserInfo,
  type Resource,
} from "../api/resource.js";
import { extractImages } from "./images.js";
import { setPath } from "./variable-key.js";

interface RequestInput {
  readonly resource: Resource;
  readonly oldResource?: Resource;
  readonly operation: Operation;
  readonly userInfo?: RequestUserInfo;
  readonly subresource?: string;
}

const SA_PREFIX = "system:serviceaccount:";

/**
 * `images` is left out when `options.images` is false: a policy that never mentions `images`
 * cannot read it, and parsing every image reference costs time per request (figures:
 * docs/adr/0004-appendix-figures-in-code.md).
 */
export function buildRequestContext(
  input: RequestInput,
  options: { readonly images?: boolean; readonly request?: JsonObject } = {},
): JsonObject {
  const subject = requestSubject(input);
  // A caller that has the whole request (the webhook's AdmissionRequest) passes it; it replaces ours.
  const request: JsonObject = options.request ?? requestOf(input, subject);
  // As Kyverno: serviceAccountName and serviceAccountNamespace come with the user info, and a run
  // without one (offline, no userinfo file) has neither, so `{{serviceAccountName}}` is an unknown key.
  const user = input.userInfo;
  const ctx: JsonObject = { request };
  if (user !== undefined) {
    const parts = user.username.startsWith(SA_PREFIX) ? user.username.slice(SA_PREFIX.length).split(":") : [];
    const sa = parts.length >= 2;
    ctx["serviceAccountName"] = sa ? (parts[1] ?? "") : "";
    ctx["serviceAccountNamespace"] = sa ? (parts[0] ?? "") : "";
  }
  if (options.images === false) return ctx;
  const images = extractImages(subject);
  if (images) ctx["images"] = images;
  return ctx;
}

/** Set a value at a dotted path (`request.operation`), creating maps on the way. Returns a new root. */
export function setDotted(root: JsonObject, dotted: string, value: JsonValue): JsonObject {
  return setPath(root, dotted.split("."), value);
}

/** `request` as the engine knows it when the caller gives none: the object, operation, user and kind. */
function requestOf(input: RequestInput, subject: Resource): JsonObject {
  const { resource, operation } = input;
  const isDelete = operation === "DELETE";
  const gv = parseApiVersion(typeof subject["apiVersion"] === "string" ? subject["apiVersion"] : "");
  const kind = { group: gv.group, version: gv.version, kind: resourceKind(subject) };
  const user = input.userInfo;
  // Without user info (offline, no userinfo file) Kyverno's request has no userInfo, roles or clusterRoles.
  const userFields: JsonObject =
    user === undefined
      ? {}
      : {
          userInfo: {
            username: user.username,
            groups: [...user.groups],
            ...(user.uid !== undefined ? { uid: user.uid } : {}),
          },
          roles: [...user.roles],
          clusterRoles: [...user.clusterRoles],
        };
  return {
    operation,
    object: isDelete ? null : resource,
    oldObject: input.oldResource ?? (isDelete ? resource : null),
    ...userFields,
    namespace: resourceNamespace(subject),
    name: resourceName(subject),
    kind,
    requestKind: kind,
    subResource: input.subresource ?? "",
    dryRun: false,
  };
}
