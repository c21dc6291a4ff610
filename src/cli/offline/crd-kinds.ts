/**
 * CustomResourceDefinitions that say what a custom kind's API resource is: `bylaw apply --crd-paths
 * PATH` (Kyverno's flag) and a test's `clusterResources` ClusterResource `spec.crds` (Kyverno's
 * test hands those to the same processor). Offline there is no discovery, so a ValidatingPolicy's
 * (or a ValidatingAdmissionPolicy's, MutatingPolicy's…) `matchConstraints.resourceRules`, which name
 * resources (`widgets`), cannot be decided for a custom kind (`Widget`): without its CRD the rule is
 * an `error` naming the kind; with it, the resource carries the CRD's plural and is matched as the
 * API server would. Each document at the paths must be an apiextensions.k8s.io/v1
 * CustomResourceDefinition with spec.group, spec.names.kind, spec.names.plural and the versions;
 * anything else is an error naming the file and document (the run exits 2). The schemas are not
 * used to check resources or to type-check CEL (Bylaw does neither for built-in kinds).
 */
import {
  type EngineRequest,
  type GroupVersionKind,
  isObject,
  type JsonObject,
  type JsonValue,
  parseApiVersion,
  type Resource,
  resourceApiVersion,
  resourceKind,
} from "../../engine/index.js";
import { loadPaths } from "../../platform/files/index.js";
import type { DefaultNamespaceOptions } from "../../platform/default-namespace.js";

/** `group kind` → the CRD's plural and the versions it serves. */
export type CrdKinds = ReadonlyMap<
  string,
  { readonly plural: string; readonly versions: ReadonlySet<string>; readonly clusterScoped: boolean }
>;

interface LoadedCrds {
  readonly kinds: CrdKinds;
  /** The CRD documents themselves (a test's fake cluster holds them, as Kyverno's does). */
  readonly documents: JsonObject[];
  readonly errors: string[];
}

const key = (group: string, kind: string): string => `${group} ${kind}`;

function str(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}

/**
 * The CRDs at `paths` (files or folders, YAML or JSON; `-` is stdin). `label` starts each error
 * (`--crd-paths: `, `clusterResources: spec.crds: `).
 */
export async function loadCrds(
  paths: readonly string[],
  stdin: () => Promise<string>,
  label = "--crd-paths: ",
): Promise<LoadedCrds> {
  const kinds = new Map<string, { plural: string; versions: Set<string>; clusterScoped: boolean }>();
  const documents: JsonObject[] = [];
  const errors: string[] = [];
  for (const d of await loadPaths(paths, { stdin })) {
    const where = `${label}${d.source}: document ${d.index + 1}`;
    if (d.error !== undefined) {
      errors.push(`${label}${d.error}`);
      continue;
    }
    if (d.value === undefined) continue;
    const doc = d.value;
    if (
      !isObject(doc) ||
      doc["kind"] !== "CustomResourceDefinition" ||
      doc["apiVersion"] !== "apiextensions.k8s.io/v1"
    ) {
      const got = isObject(doc)
        ? `${str(doc["apiVersion"]) || "(no apiVersion)"} ${str(doc["kind"]) || "(no kind)"}`
        : "not an object";
      errors.push(`${where}: not an apiextensions.k8s.io/v1 CustomResourceDefinition (got ${got})`);
      continue;
    }
    const spec = isObject(doc["spec"]) ? doc["spec"] : {};
    const names = isObject(spec["names"]) ? spec["names"] : {};
    const group = str(spec["group"]);
    const kind = str(names["kind"]);
    const plural = str(names["plural"]);
    const versions = (Array.isArray(spec["versions"]) ? spec["versions"] : [])
      .map((v) => (isObject(v) && v["served"] !== false ? str(v["name"]) : ""))
      .filter((v) => v !== "");
    const missing = [
      ...(group === "" ? ["spec.group"] : []),
      ...(kind === "" ? ["spec.names.kind"] : []),
      ...(plural === "" ? ["spec.names.plural"] : []),
      ...(versions.length === 0 ? ["spec.versions (a served version with a name)"] : []),
    ];
    if (missing.length > 0) {
      errors.push(
        `${where}: CustomResourceDefinition ${str(isObject(doc["metadata"]) ? doc["metadata"]["name"] : undefined) || "(no name)"}: missing ${missing.join(", ")}`,
      );
      continue;
    }
    const entry = kinds.get(key(group, kind)) ?? {
      plural,
      versions: new Set<string>(),
      clusterScoped: spec["scope"] === "Cluster",
    };
    for (const v of versions) entry.versions.add(v);
    kinds.set(key(group, kind), entry);
    documents.push(doc);
  }
  return { kinds, documents, errors };
}

/**
 * The kind `resource` is matched as when a CRD names its group, kind and version: its own, with the
 * CRD's plural as the API resource. Undefined for any other resource (built-in kinds are named by
 * Bylaw itself).
 */
function crdMatchKind(kinds: CrdKinds, resource: Resource): GroupVersionKind | undefined {
  if (kinds.size === 0) return undefined;
  const gv = parseApiVersion(resourceApiVersion(resource));
  const kind = resourceKind(resource);
  const crd = kinds.get(key(gv.group, kind));
  if (crd === undefined || !crd.versions.has(gv.version)) return undefined;
  return { group: gv.group, version: gv.version, kind, resource: crd.plural };
}

/** The request with the CRD's kind to match by, when Bylaw does not name the resource's kind itself. */
export function withCrdKind(request: EngineRequest, kinds: CrdKinds): EngineRequest {
  if (request.matchKind !== undefined) return request;
  const kind = crdMatchKind(kinds, request.resource);
  return kind === undefined ? request : { ...request, matchKind: kind };
}

/** Whether a CRD given names the kind (in its API group) with `scope: Cluster`. */
function crdClusterScoped(kinds: CrdKinds, group: string, kind: string): boolean {
  return kinds.get(key(group, kind))?.clusterScoped === true;
}

/** `inDefaultNamespace`'s options for the CRDs given: a CRD with `scope: Cluster` keeps its objects out of `default`. */
export function crdScopes(kinds: CrdKinds | undefined): DefaultNamespaceOptions {
  return kinds === undefined ? {} : { crdClusterScoped: (group, kind) => crdClusterScoped(kinds, group, kind) };
}
