/**
 * What a test says exists outside the resources under test, for the CEL libraries and context
 * entries to read offline: its `context` file (Kyverno's CLI `cli.kyverno.io/v1alpha1` Context:
 * `spec.resources`, objects; `spec.images`, image data by reference) and its `clusterResources`:
 * files of Kyverno 1.19's `cli.kyverno.io/v1alpha1` ClusterResource documents (`spec.resources`, the
 * objects; `spec.crds`, CRD files naming custom kinds' API resources, read as --crd-paths is), or of plain
 * objects; and its `globalContextEntries` (global-context-mocks.ts).
 */
import { resolve } from "node:path";
import { isObject, type JsonObject, type JsonValue, textOf } from "../../engine/index.js";
import { loadPaths } from "../../platform/files/index.js";
import { loadGlobalMocks, type GlobalMock } from "./global-context-mocks.js";

export interface SuiteCluster {
  readonly resources: readonly JsonObject[];
  readonly images: Readonly<Record<string, JsonValue>>;
  /** The test's `paramResources`: what ValidatingAdmissionPolicy bindings take params from. */
  readonly params?: readonly JsonObject[];
  /** The test's `globalContextEntries`, their resourceFiles read. */
  readonly globals?: readonly GlobalMock[];
  /** Its ClusterResources' `spec.crds`: CRD files, relative to the test's folder (crd-kinds.ts reads them). */
  readonly crdPaths?: readonly string[];
  /** Those CRDs read: their kinds are typed for a MutatingPolicy's ApplyConfiguration. */
  readonly crds?: readonly JsonObject[];
}

/**
 * An `images` entry as Kyverno's CLI hands it to `image.GetMetadata`: its ImageData fields, the
 * strings always present ("" when not given), tag, digest, imageIndex, manifest and config when given.
 */
function imageData(entry: JsonObject): JsonObject {
  const s = (k: string): string => (typeof entry[k] === "string" ? entry[k] : "");
  const out: JsonObject = {
    image: s("image"),
    resolvedImage: s("resolvedImage"),
    registry: s("registry"),
    repository: s("repository"),
  };
  if (s("tag") !== "") out["tag"] = s("tag");
  if (s("digest") !== "") out["digest"] = s("digest");
  for (const k of ["imageIndex", "manifest", "config"]) {
    const v = entry[k];
    if (v !== undefined && v !== null) out[k] = v;
  }
  return out;
}

export async function loadSuiteCluster(
  dir: string,
  context: string | undefined,
  clusterResources: readonly string[],
  globalEntries: readonly JsonObject[] = [],
): Promise<{ cluster: SuiteCluster; errors: string[] }> {
  const errors: string[] = [];
  const resources: JsonObject[] = [];
  const images: Record<string, JsonValue> = {};
  if (context !== undefined) {
    const docs = await loadPaths([resolve(dir, context)]);
    for (const d of docs) {
      if (d.error !== undefined) errors.push(`context: ${d.error}`);
      if (!isObject(d.value)) continue;
      if (d.value["kind"] !== "Context") {
        errors.push(`context: ${context}: expected kind Context, got ${JSON.stringify(d.value["kind"] ?? null)}`);
        continue;
      }
      const spec = isObject(d.value["spec"]) ? d.value["spec"] : {};
      const listed = spec["resources"];
      if (Array.isArray(listed)) resources.push(...listed.filter(isObject));
      const imageList = spec["images"];
      for (const [i, entry] of (Array.isArray(imageList) ? imageList : []).entries()) {
        if (!isObject(entry) || typeof entry["image"] !== "string" || entry["image"] === "")
          errors.push(`context: ${context}: spec.images[${i}].image is required`);
        else images[entry["image"]] = imageData(entry);
      }
    }
  }
  const crdPaths: string[] = [];
  if (clusterResources.length > 0) {
    for (const d of await loadPaths(clusterResources.map((p) => resolve(dir, p)))) {
      if (d.error !== undefined) errors.push(`clusterResources: ${d.error}`);
      else if (isClusterResource(d.value)) {
        resources.push(...clusterResourceObjects(d.value));
        crdPaths.push(...clusterResourceCrds(d.value).map((p) => resolve(dir, p)));
      } else if (isObject(d.value) && typeof d.value["kind"] === "string") resources.push(d.value);
    }
  }
  const globals = await loadGlobalMocks(dir, globalEntries);
  errors.push(...globals.errors);
  return {
    cluster: {
      resources,
      images,
      ...(globals.mocks.length > 0 ? { globals: globals.mocks } : {}),
      ...(crdPaths.length > 0 ? { crdPaths } : {}),
    },
    errors,
  };
}

/** A ClusterResource's `spec.crds`: paths of CRD files, relative to the test's folder as Kyverno reads them. */
function clusterResourceCrds(doc: JsonObject): string[] {
  const spec = isObject(doc["spec"]) ? doc["spec"] : {};
  const listed = spec["crds"];
  return Array.isArray(listed) ? listed.filter((p): p is string => typeof p === "string" && p.trim() !== "") : [];
}

function isClusterResource(v: JsonValue | undefined): v is JsonObject {
  return isObject(v) && v["kind"] === "ClusterResource" && textOf(v["apiVersion"]).startsWith("cli.kyverno.io/");
}

/** A ClusterResource's `spec.resources`: the objects it declares. */
function clusterResourceObjects(doc: JsonObject): JsonObject[] {
  const spec = isObject(doc["spec"]) ? doc["spec"] : {};
  const listed = spec["resources"];
  return Array.isArray(listed)
    ? listed.filter((o): o is JsonObject => isObject(o) && typeof o["kind"] === "string")
    : [];
}
