import type { JsonObject } from "./json.js";

/** A Kubernetes object as JSON. apiVersion/kind/metadata are expected but not guaranteed. */
export type Resource = JsonObject;

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

/** Who made the request, and the RBAC roles Kyverno computed for them. */
export interface RequestUserInfo {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
  /** `namespace:name` role bindings. */
  readonly roles: readonly string[];
  readonly clusterRoles: readonly string[];
}

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /**
   * The resource (plural) a request addresses, when known (an admission request names it): resource
   * rules match by it, a custom resource's too, where a kind alone gives no plural.
   */
  readonly resource?: string;
}

/** Small helpers to read the usual metadata of a resource without casts everywhere. */
export function resourceKind(r: Resource): string {
  return typeof r["kind"] === "string" ? r["kind"] : "";
}

export function resourceApiVersion(r: Resource): string {
  return typeof r["apiVersion"] === "string" ? r["apiVersion"] : "";
}

export function resourceMetadata(r: Resource): JsonObject {
  const m = r["metadata"];
  return typeof m === "object" && m !== null && !Array.isArray(m) ? m : {};
}

export function resourceName(r: Resource): string {
  const n = resourceMetadata(r)["name"];
  return typeof n === "string" ? n : "";
}

export function resourceGenerateName(r: Resource): string {
  const n = resourceMetadata(r)["generateName"];
  return typeof n === "string" ? n : "";
}

export function resourceNamespace(r: Resource): string {
  const n = resourceMetadata(r)["namespace"];
  return typeof n === "string" ? n : "";
}

export function resourceLabels(r: Resource): Record<string, string> {
  return stringMap(resourceMetadata(r)["labels"]);
}

export function resourceAnnotations(r: Resource): Record<string, string> {
  return stringMap(resourceMetadata(r)["annotations"]);
}

function stringMap(v: unknown): Record<string, string> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return {};
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    out[k] = typeof val === "string" ? val : JSON.stringify(val);
  }
  return out;
}

/** Split `group/version` into its parts; the core group is "". */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf("/");
  return i < 0
    ? { group: "", version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/**
 * The object a request is about, which its rules match and check: the old object for DELETE
 * (whose object is null), else the object. The one place this choice is written.
 */
export function requestSubject(request: {
  readonly resource: Resource;
  readonly oldResource?: Resource;
  readonly operation: Operation;
}): Resource {
  return request.operation === "DELETE" && request.oldResource !== undefined ? request.oldResource : request.resource;
}
