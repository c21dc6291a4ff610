/**
 * Which signed manifests an object is compared with (k8s-manifest-sigstore `FindManifestYAML`):
 * among the manifests of the object's kind, the one with its group, kind and name (and namespace
 * when several share the name); failing that, the manifests sharing the most leaf values with the
 * object (ignored fields aside), at most three. k8s-manifest-sigstore stops that count early by a
 * heuristic (when few candidates keep matching); counting every value picks the same best match.
 */
import { isObject, type JsonObject, type JsonValue } from "../api/json.js";
import { flatten } from "./flat-diff.js";
import { fieldPattern } from "./ignore-fields.js";

const MAX_CANDIDATES = 3;

interface Identity {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

function identity(o: JsonObject): Identity {
  const meta = isObject(o["metadata"]) ? o["metadata"] : {};
  const apiVersion = typeof o["apiVersion"] === "string" ? o["apiVersion"] : "";
  const slash = apiVersion.lastIndexOf("/");
  const str = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");
  return {
    group: slash < 0 ? "" : apiVersion.slice(0, slash),
    kind: str(o["kind"]),
    name: str(meta["name"]),
    namespace: str(meta["namespace"]),
  };
}

export function findManifests(
  manifests: readonly JsonObject[],
  object: JsonObject,
  ignoreFields: readonly string[],
): JsonObject[] {
  const id = identity(object);
  const sameKind = manifests.filter((m) => identity(m).kind === id.kind);
  if (sameKind.length === 0) return [];
  const named = sameKind.filter((m) => {
    const mid = identity(m);
    return mid.group === id.group && mid.name === id.name;
  });
  if (named.length > 0) return [named.find((m) => identity(m).namespace === id.namespace) ?? (named[0] as JsonObject)];
  return byValue(sameKind, object, ignoreFields);
}

function byValue(candidates: readonly JsonObject[], object: JsonObject, ignoreFields: readonly string[]): JsonObject[] {
  const masks = ignoreFields
    .map((f) => fieldPattern(f.replace(/\*+$/, "")))
    .filter((p): p is RegExp => p !== undefined);
  const visible = (v: JsonValue): Map<string, unknown> =>
    new Map([...flatten(v)].filter(([k]) => !masks.some((p) => p.test(k))));
  const own = visible(object);
  const scored = candidates.map((m, i) => {
    let count = 0;
    for (const [k, v] of visible(m)) if (own.get(k) === v) count++;
    return { m, i, count };
  });
  const best = Math.max(...scored.map((s) => s.count));
  return scored
    .filter((s) => s.count === best)
    .slice(0, MAX_CANDIDATES)
    .map((s) => s.m);
}
