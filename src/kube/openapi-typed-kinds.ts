/**
 * The types of the cluster's kinds from its OpenAPI v3 (/openapi/v3: an index of group-versions,
 * each document fetched once it is needed), as Kyverno types a MutatingPolicy's ApplyConfiguration
 * (apiserver's TypeConverterManager over discovery's OpenAPIV3). Only the group-versions `load` is
 * given are fetched and kept (the ones the MutatingPolicies meet), so memory stays bounded by them.
 * The index names each document with a hash of its content (`?hash=`): `refresh` re-reads the index
 * (Kyverno polls it every 5 s), and a document whose hash changed (a CRD's schema was edited) is
 * fetched again on its next `load`. A kind none of the documents declares has no type converter:
 * its patch is an error, as in Kyverno ("type converter must not be nil"), with the reason Bylaw
 * knows (not served, not read yet, or the fetch that failed).
 */
import type { TypedKinds, TypedSchemaData } from "../engine/index.js";

/** What the loader reads the API server with (KubeClient.getJson). */
interface OpenApiReader {
  getJson(path: string): Promise<unknown>;
}

/** The loaded types as plain data: what an evaluation worker is sent to type the same kinds (clusterTypedKinds). */
export interface ClusterTypesState {
  /** The types the documents read declare. */
  readonly data: TypedSchemaData;
  /** The apiVersions whose documents were read. */
  readonly read: readonly string[];
  /** The apiVersions the index lists no document for. */
  readonly unserved: readonly string[];
  /** The apiVersions whose index or document could not be read, with why. */
  readonly failed: Readonly<Record<string, string>>;
}

export interface ClusterTypedKinds {
  /** The types loaded so far; a kind not among them is an error naming why. */
  readonly kinds: TypedKinds;
  /** Bumped each time the types change (state() then differs). */
  readonly version: number;
  state(): ClusterTypesState;
  /**
   * Whether this kind's types are as the index last read says (load would fetch nothing). A kind they
   * lack is not ready while the index is over a second old: its CRD may have been created since.
   */
  ready(apiVersion: string, kind: string): boolean;
  /**
   * Fetch the documents of these apiVersions not loaded, or changed since (the index re-read first
   * when over a second old); the failures, worded for a user.
   */
  load(apiVersions: readonly string[]): Promise<readonly string[]>;
  /**
   * Re-read the index, so that a changed document is fetched on its next load; nothing while no
   * document is held. A failure keeps the index read before (and is returned, for a warning).
   */
  refresh(): Promise<string | undefined>;
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

/**
 * The kinds `state` types, for the engine (EnginePorts.typedKinds): `kindsOf` reads its data (the
 * engine's typedKindsOf); a kind it does not declare is an error saying why.
 */
export function clusterTypedKinds(
  state: ClusterTypesState,
  kindsOf: (data: TypedSchemaData) => TypedKinds,
): TypedKinds {
  const kinds = kindsOf(state.data);
  const read = new Set(state.read);
  const unserved = new Set(state.unserved);
  const why = (apiVersion: string, kind: string): string =>
    state.failed[apiVersion] ??
    (read.has(apiVersion)
      ? `the cluster's OpenAPI v3 for ${apiVersion} declares no kind ${kind}`
      : unserved.has(apiVersion)
        ? `the cluster's OpenAPI v3 serves no schema for ${apiVersion}`
        : `the cluster's OpenAPI v3 for ${apiVersion} was not read in time`);
  return {
    typeOf: (apiVersion, kind) => kinds.typeOf(apiVersion, kind),
    resolve: (node) => kinds.resolve(node),
    missing: (apiVersion, kind) => `type converter must not be nil: ${why(apiVersion, kind)}`,
  };
}

interface ClusterTypesOptions {
  readonly client: OpenApiReader;
  /** The types the documents declare (the engine's typedSchemaFromOpenApi). */
  readonly schemaOf: (documents: readonly unknown[]) => TypedSchemaData;
  /** The engine's reader of such types (typedKindsOf). */
  readonly kindsOf: (data: TypedSchemaData) => TypedKinds;
  /** The clock in milliseconds (default Date.now), for the index's age. */
  readonly now?: () => number;
}

/** How old the index may be and still be believed about a kind the types lack, in milliseconds. */
const INDEX_TRUSTED_MS = 1_000;

export function createClusterTypedKinds(options: ClusterTypesOptions): ClusterTypedKinds {
  return new ClusterTypes(options);
}

class ClusterTypes implements ClusterTypedKinds {
  /** The index last read, and the read in flight (shared by every caller). */
  private paths: Readonly<Record<string, string>> | undefined;
  private reading: Promise<Readonly<Record<string, string>>> | undefined;
  private indexReadAt = Number.NEGATIVE_INFINITY;
  private indexFailure = "";
  private readonly now: () => number;
  private readonly documents = new Map<string, { readonly url: string; readonly document: unknown }>();
  private readonly unserved = new Set<string>();
  private readonly failed = new Map<string, string>();
  /** Document fetches in flight, by URL: concurrent reviews of one kind share one fetch. */
  private readonly fetching = new Map<string, Promise<string | undefined>>();
  private current: ClusterTypesState;
  private typed: TypedKinds;
  version = 0;
  readonly kinds: TypedKinds = {
    typeOf: (apiVersion, kind) => this.typed.typeOf(apiVersion, kind),
    resolve: (node) => this.typed.resolve(node),
    missing: (apiVersion, kind) => this.typed.missing?.(apiVersion, kind),
  };

  constructor(private readonly options: ClusterTypesOptions) {
    this.now = options.now ?? Date.now;
    this.current = { data: options.schemaOf([]), read: [], unserved: [], failed: {} };
    this.typed = clusterTypedKinds(this.current, options.kindsOf);
  }

  state(): ClusterTypesState {
    return this.current;
  }

  ready(apiVersion: string, kind: string): boolean {
    if (this.paths === undefined) return false;
    const url = this.paths[groupVersionPath(apiVersion)];
    const current = url === undefined ? this.unserved.has(apiVersion) : this.documents.get(apiVersion)?.url === url;
    if (!current) return false;
    return this.typed.typeOf(apiVersion, kind) !== undefined || !this.indexOld();
  }

  private indexOld(): boolean {
    return this.now() - this.indexReadAt > INDEX_TRUSTED_MS;
  }

  async load(apiVersions: readonly string[]): Promise<readonly string[]> {
    const wanted = [...new Set(apiVersions)];
    let index;
    try {
      index = this.paths !== undefined && !this.indexOld() ? this.paths : await this.readIndex();
    } catch {
      index = this.paths; // the index read before, if any (the failure is kept for the message below)
    }
    if (index === undefined) {
      const reason = `cannot read the cluster's OpenAPI v3 index (/openapi/v3): ${this.indexFailure}`;
      for (const v of wanted) if (!this.documents.has(v)) this.failed.set(v, reason);
      this.rebuild();
      return [reason];
    }
    let changed = false;
    const reads: Promise<string | undefined>[] = [];
    for (const v of wanted) {
      const url = index[groupVersionPath(v)];
      if (url === undefined) {
        // Not served (or no longer: its CRD was deleted): its kinds are "missing", not a fetch failure.
        const held = this.documents.delete(v);
        const wasFailing = this.failed.delete(v);
        if (held || wasFailing || !this.unserved.has(v)) changed = true;
        this.unserved.add(v);
      } else if (this.documents.get(v)?.url !== url) reads.push(this.fetch(v, url));
    }
    const reasons = (await Promise.all(reads)).filter((r): r is string => r !== undefined);
    if (changed || reads.length > 0) this.rebuild();
    return reasons;
  }

  async refresh(): Promise<string | undefined> {
    if (this.documents.size === 0 && this.unserved.size === 0) {
      this.paths = undefined; // nothing held: the next load reads the index afresh
      return undefined;
    }
    try {
      await this.readIndex();
      return undefined;
    } catch (e) {
      return `cannot read the cluster's OpenAPI v3 index (/openapi/v3): ${failure(e)}`;
    }
  }

  private rebuild(): void {
    this.current = {
      data: this.options.schemaOf([...this.documents.values()].map((d) => d.document)),
      read: [...this.documents.keys()],
      unserved: [...this.unserved],
      failed: Object.fromEntries(this.failed),
    };
    this.typed = clusterTypedKinds(this.current, this.options.kindsOf);
    this.version++;
  }

  private readIndex(): Promise<Readonly<Record<string, string>>> {
    return (this.reading ??= readIndex(this.options.client)
      .then(
        (p) => {
          this.indexReadAt = this.now();
          return (this.paths = p);
        },
        (e: unknown) => {
          this.indexFailure = failure(e);
          throw e;
        },
      )
      .finally(() => (this.reading = undefined)));
  }

  private fetch(apiVersion: string, url: string): Promise<string | undefined> {
    let pending = this.fetching.get(url);
    if (pending === undefined) {
      pending = this.options.client
        .getJson(url)
        .then(
          (document) => {
            this.documents.set(apiVersion, { url, document });
            this.failed.delete(apiVersion);
            this.unserved.delete(apiVersion);
            return undefined;
          },
          (e: unknown) => {
            const reason = `cannot read the cluster's OpenAPI v3 for ${apiVersion} (${url}): ${failure(e)}`;
            this.failed.set(apiVersion, reason);
            return reason;
          },
        )
        .finally(() => this.fetching.delete(url));
      this.fetching.set(url, pending);
    }
    return pending;
  }
}

/** The cluster's types for an engine that runs in rounds (the controllers: run, read what it asked for, run again). */
interface TypesInRounds {
  readonly kinds: TypedKinds;
  /** Group-versions asked for and not loaded yet in this run. */
  readonly pending: number;
  /** Loads them; each group-version once per run, so that a read that failed ends as the kind's error, not another round. */
  settle(): Promise<void>;
}

export function typesInRounds(types: ClusterTypedKinds): TypesInRounds {
  const asked = new Set<string>();
  const pending = new Set<string>();
  return {
    kinds: {
      typeOf: (apiVersion, kind) => {
        if (!asked.has(apiVersion) && !types.ready(apiVersion, kind)) pending.add(apiVersion);
        return types.kinds.typeOf(apiVersion, kind);
      },
      resolve: (node) => types.kinds.resolve(node),
      missing: (apiVersion, kind) => types.kinds.missing?.(apiVersion, kind),
    },
    get pending() {
      return pending.size;
    },
    async settle() {
      const now = [...pending];
      pending.clear();
      for (const v of now) asked.add(v);
      await types.load(now);
    },
  };
}
