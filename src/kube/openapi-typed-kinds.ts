/**
 * The types of the cluster's kinds from its OpenAPI v3 (/openapi/v3: an index of group-versions,
 * each document fetched once it is needed), as Kyverno's admission controller types a
 * MutatingPolicy's ApplyConfiguration (apiserver's TypeConverterManager over discovery's
 * OpenAPIV3). Only the group-versions `load` is given are fetched and kept (the ones the served
 * MutatingPolicies target), so memory stays bounded by them. A kind none of them declares has no
 * type converter: its patch is an error, as in Kyverno ("type converter must not be nil"), with
 * the reason Bylaw knows (not served, or the fetch that failed).
 */
import type { TypedKinds } from "../engine/index.js";

/** What the loader reads the API server with (KubeClient.getJson). */
interface OpenApiReader {
  getJson(path: string): Promise<unknown>;
}

interface ClusterTypedKinds {
  /** The types loaded so far; a kind not among them is an error naming why. */
  readonly kinds: TypedKinds;
  /** Fetch the documents of these apiVersions not yet loaded; the failures, worded for a user. */
  load(apiVersions: readonly string[]): Promise<readonly string[]>;
  /** Forget every document and the index (a CRD changed): the next load fetches them again. */
  invalidate(): void;
}

const groupVersionPath = (apiVersion: string): string =>
  apiVersion.includes("/") ? `apis/${apiVersion}` : `api/${apiVersion}`;

const failure = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** /openapi/v3's group-version paths (api/v1, apis/GROUP/VERSION) to their documents' URLs. */
async function readIndex(client: OpenApiReader): Promise<Readonly<Record<string, string>>> {
  const body = await client.getJson("/openapi/v3");
  const paths = typeof body === "object" && body !== null ? (body as { paths?: unknown }).paths : undefined;
  if (typeof paths !== "object" || paths === null) throw new Error("/openapi/v3 answered no paths");
  const out: Record<string, string> = {};
  for (const [path, entry] of Object.entries(paths)) {
    const url = (entry as { serverRelativeURL?: unknown } | null)?.serverRelativeURL;
    if (typeof url === "string") out[path] = url;
  }
  return out;
}

/** Why a kind has no type: its group-version's fetch failed, it is not served, or it has no such kind. */
function missingReason(at: {
  readonly apiVersion: string;
  readonly kind: string;
  readonly failed: ReadonlyMap<string, string>;
  readonly documents: ReadonlyMap<string, unknown>;
}): string {
  const why =
    at.failed.get(at.apiVersion) ??
    (at.documents.has(at.apiVersion)
      ? `the cluster's OpenAPI v3 for ${at.apiVersion} declares no kind ${at.kind}`
      : `the cluster's OpenAPI v3 serves no schema for ${at.apiVersion}`);
  return `type converter must not be nil: ${why}`;
}

export function createClusterTypedKinds(options: {
  readonly client: OpenApiReader;
  /** The types the documents declare (the engine's converter: typedKindsOf over typedSchemaFromOpenApi). */
  readonly convert: (documents: readonly unknown[]) => TypedKinds;
}): ClusterTypedKinds {
  let index: Promise<Readonly<Record<string, string>>> | undefined;
  const documents = new Map<string, unknown>();
  const failed = new Map<string, string>();
  let current: TypedKinds = options.convert([]);
  const rebuild = (): void => {
    current = options.convert([...documents.values()]);
  };
  const loadOne = async (apiVersion: string, paths: Readonly<Record<string, string>>): Promise<string | undefined> => {
    const url = paths[groupVersionPath(apiVersion)];
    if (url === undefined) return undefined; // not served: its kinds are "missing", not a fetch failure
    try {
      documents.set(apiVersion, await options.client.getJson(url));
      failed.delete(apiVersion);
      return undefined;
    } catch (e) {
      const reason = `cannot read the cluster's OpenAPI v3 for ${apiVersion} (${url}): ${failure(e)}`;
      failed.set(apiVersion, reason);
      return reason;
    }
  };
  const kinds: TypedKinds = {
    typeOf: (apiVersion, kind) => current.typeOf(apiVersion, kind),
    resolve: (node) => current.resolve(node),
    missing: (apiVersion, kind) => missingReason({ apiVersion, kind, failed, documents }),
  };
  return {
    kinds,
    async load(apiVersions) {
      const wanted = [...new Set(apiVersions)].filter((v) => !documents.has(v));
      if (wanted.length === 0) return [];
      let paths;
      try {
        paths = await (index ??= readIndex(options.client));
      } catch (e) {
        index = undefined;
        const reason = `cannot read the cluster's OpenAPI v3 index (/openapi/v3): ${failure(e)}`;
        for (const v of wanted) failed.set(v, reason);
        return [reason];
      }
      const reasons = (await Promise.all(wanted.map((v) => loadOne(v, paths)))).filter(
        (r): r is string => r !== undefined,
      );
      rebuild();
      return reasons;
    },
    invalidate() {
      index = undefined;
      documents.clear();
      failed.clear();
      rebuild();
    },
  };
}
