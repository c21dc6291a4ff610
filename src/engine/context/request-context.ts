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
  const user = input.userInfo;
  let saName = "";
  let saNamespace = "";
  if (user && user.username.startsWith(SA_PREFIX)) {
    const parts = user.username.slice(SA_PREFIX.length).split(":");
    if (parts.length === 2) {
      saNamespace = parts[0] ?? "";
      saName = parts[1] ?? "";
    }
  }
  const ctx: JsonObject = { request, serviceAccountName: saName, serviceAccountNamespace: saNamespace };
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
  const userInfo: JsonObject = user
    ? { username: user.username, groups: [...user.groups], ...(user.uid !== undefined ? { uid: user.uid } : {}) }
    : { username: "", groups: [] as JsonValue[] };
  return {
    operation,
    object: isDelete ? null : resource,
    oldObject: input.oldResource ?? (isDelete ? resource : null),
    userInfo,
    roles: user ? [...user.roles] : [],
    clusterRoles: user ? [...user.clusterRoles] : [],
    namespace: resourceNamespace(subject),
    name: resourceName(subject),
    kind,
    requestKind: kind,
    subResource: input.subresource ?? "",
    dryRun: false,
  };
}
