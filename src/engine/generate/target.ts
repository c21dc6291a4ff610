/** Giving a generated object its identity: the apiVersion, kind, name and namespace of the rule. */
import { isObject, type JsonObject } from "../api/json.js";
import type { Resource } from "../api/resource.js";
import { setOwn } from "../api/set-own.js";
import { cloneJson } from "../api/json-copy.js";

export interface TargetRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

/**
 * Build `{apiVersion, kind, metadata: {name, namespace, ...meta}, ...body}` from copies of `meta`
 * and `body`. As with Kubernetes' unstructured setters, an empty name or namespace removes the
 * field rather than writing "".
 */
export function withIdentity(target: TargetRef, meta: JsonObject, body: JsonObject): Resource {
  const metadata: JsonObject = {};
  if (target.name !== "") metadata["name"] = target.name;
  if (target.namespace !== "") metadata["namespace"] = target.namespace;
  for (const [k, v] of Object.entries(meta)) {
    if (k !== "name" && k !== "namespace") setOwn(metadata, k, cloneJson(v));
  }
  const out: Resource = { apiVersion: target.apiVersion, kind: target.kind, metadata };
  for (const [k, v] of Object.entries(body)) {
    if (k !== "apiVersion" && k !== "kind" && k !== "metadata") setOwn(out, k, cloneJson(v));
  }
  return out;
}

export function metadataOf(o: JsonObject): JsonObject {
  const m = o["metadata"];
  return isObject(m) ? m : {};
}

export function describeTarget(t: TargetRef): string {
  return t.namespace === "" ? `${t.kind} ${t.name}` : `${t.kind} ${t.namespace}/${t.name}`;
}
