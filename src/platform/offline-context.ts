/**
 * Answers for context entries without a cluster, as `kyverno test` / `kyverno apply` give them:
 * apiCall from mocked responses (a test's `apiCallResponses`, `createBylaw`'s `apiCalls`),
 * globalReference from given entries (a test's `globalContextEntries`, `createBylaw`'s
 * `globalContext`); objects a test gives (its `context` file resources, `clusterResources`) answer
 * `configMap` entries, `apiCall` GETs of object and list URL paths (after the mocks) and CEL
 * `resource.Get/List`; image data a context file gives answers CEL `image.GetMetadata`, and with
 * registry access (`--registry`) the registry answers the rest and `imageRegistry` entries; parameter
 * objects (a test's `paramResources`) answer ValidatingAdmissionPolicy bindings' paramRef; `bylaw
 * apply`'s own resources answer `apiCall` GETs, as Kyverno's apply's fake client does. Everything
 * else is "unavailable" (the entry is not loaded, and a value for the same name may come from a
 * values file instead; without one the rule is an error naming it).
 */
import {
  type ApiCallRequest,
  type ContextSources,
  err,
  type HostResolver,
  type JsonObject,
  type JsonValue,
  ok,
  type ParamKind,
  type Result,
} from "../engine/index.js";
import { OfflineResources } from "./offline-resources.js";
import type { ImageDataSource } from "./registry/registry-access.js";

export interface MockedApiCall {
  readonly urlPath?: string;
  readonly url?: string;
  readonly method?: string;
  readonly statusCode: number;
  readonly body: JsonValue;
  /**
   * The entry's `response` as written: what a mocked CEL http.Get/http.Post returns (Kyverno's CLI
   * mock); `{statusCode, body}` when not given.
   */
  readonly response?: JsonValue;
}

export interface OfflineContextOptions {
  readonly apiCalls?: readonly MockedApiCall[];
  readonly globalEntries?: Readonly<Record<string, JsonValue>>;
  /** Entries given that have no value, by entry name, with why (a test's globalContextEntries whose JMESPath failed). */
  readonly globalErrors?: Readonly<Record<string, string>>;
  /** Objects that exist (a test's context file resources and clusterResources). */
  readonly resources?: readonly JsonObject[];
  /**
   * Objects that answer `apiCall` GETs of an object or list URL path only (after the mocks, before
   * `resources`): `bylaw apply`'s resources, target resources and parameter resources, as Kyverno's
   * apply builds its fake client from them without a cluster. Read when the first call comes.
   */
  readonly apiCallObjects?: () => readonly JsonObject[];
  /** Image data by the reference as written (a test's context file `images`). */
  readonly images?: Readonly<Record<string, JsonValue>>;
  /** Registry access (`--registry`): image data for references the context file does not give. */
  readonly registry?: ImageDataSource;
  /** The objects validate.cel paramRefs take params from (by kind), read when a rule asks. */
  readonly params?: () => readonly JsonObject[];
  /**
   * Whether `params` are also what ValidatingAdmissionPolicy bindings choose from (every kind): true
   * for `bylaw test` (Kyverno's test hands its paramResources over), false for `bylaw apply`
   * (Kyverno's apply hands none over).
   */
  readonly bindingParams?: boolean;
  /** What ValidatingAdmissionPolicy bindings choose params from when not `params` (`bylaw apply --parameter-resource`). */
  readonly bindingParamObjects?: () => readonly JsonObject[];
  /**
   * How a user gets registry access where this engine has none, for the error an image read then is:
   * the CLI's `--registry` (the default), or what a library caller or `bylaw serve` must do instead.
   */
  readonly noRegistryHint?: string;
  /**
   * A test gave `clusterResources`: Kyverno's test then evaluates ValidatingAdmissionPolicy bindings
   * against its fake cluster (ContextSources `clusterGiven`), whose objects (`resources`) are params
   * of their kind too, beside `params`.
   */
  readonly clusterGiven?: boolean;
  /** Told what the engine did in the user's stead (ContextSources `warn`). */
  readonly onWarning?: (message: string) => void;
}

const CLI_REGISTRY_HINT = "run with --registry to read it from the registry";

const UNAVAILABLE = "no cluster connection: the value must come from a values file";

export function offlineContextSources(options: OfflineContextOptions = {}): ContextSources {
  const objects = new OfflineResources(options.resources ?? []);
  const haveObjects = objects.size > 0;
  let served: OfflineResources | undefined;
  const hinted = new Set<string>();
  const notGiven = (read: Result<JsonValue>, resource: string): Result<JsonValue> => {
    if (!hinted.has(resource)) {
      hinted.add(resource);
      options.onWarning?.(
        `a policy reads ${resource} from the cluster (resource.Get/List), and this run reads none: it answers as Kyverno's CLI does (not found); give the objects in a test's context file or clusterResources, or run bylaw apply --cluster`,
      );
    }
    return read.ok ? read : err("unavailable", read.error.message);
  };
  const apiCallObjects = (): OfflineResources | undefined => {
    if (options.apiCallObjects === undefined) return undefined;
    served ??= new OfflineResources(options.apiCallObjects());
    return served.size > 0 ? served : undefined;
  };
  return {
    ...(options.onWarning !== undefined ? { warn: options.onWarning } : {}),
    canLoad: (kind) =>
      (kind === "apiCall" && ((options.apiCalls?.length ?? 0) > 0 || haveObjects || apiCallObjects() !== undefined)) ||
      (kind === "configMap" && haveObjects) ||
      (kind === "globalReference" &&
        Object.keys(options.globalEntries ?? {}).length + Object.keys(options.globalErrors ?? {}).length > 0) ||
      (kind === "imageRegistry" && options.registry !== undefined),
    configMap: (namespace, name) =>
      haveObjects
        ? objects.get({ apiVersion: "v1", resource: "configmaps", namespace, name })
        : err("unavailable", `configMap ${namespace}/${name}: ${UNAVAILABLE}`),
    apiCall: (req: ApiCallRequest): Result<JsonValue> => {
      const mock = mockFor(options.apiCalls ?? [], req);
      const path = !mock && req.urlPath !== undefined ? req.urlPath : undefined;
      if (path !== undefined) {
        // The given resources answer a GET of a resource they hold objects of; anything else is not
        // loaded and names how to supply it (Kyverno's fake client fails or panics there).
        const given = req.method === "GET" ? apiCallObjects()?.urlPath(path, { onlyServed: true }) : undefined;
        const read = given ?? (haveObjects && req.method === "GET" ? objects.urlPath(path) : undefined);
        if (read !== undefined)
          return read.ok
            ? read
            : err(read.error.kind, `failed to GET resource with raw url: ${path}: ${read.error.message}`);
      }
      if (!mock) return err("unavailable", unmocked(req));
      // CEL http.Get/Post: Kyverno's CLI answers a mocked URL with the entry's response as written, whatever
      // its status (pkg/cel/libs/http_mock.go returns the stored value; no statusCode is merged into the body).
      if (req.form === "http") return ok(mock.response ?? { statusCode: mock.statusCode, body: mock.body });
      if (mock.statusCode < 200 || mock.statusCode > 299)
        return err("api-call", `HTTP ${mock.statusCode}: ${JSON.stringify(mock.body)}`);
      return ok(mock.body);
    },
    globalReference: (name) => {
      const broken = options.globalErrors?.[name.split(".")[0] ?? name];
      if (broken !== undefined) return err("context", broken);
      const v = options.globalEntries?.[name];
      // Entries were given (canLoad), so there is a store: a name it lacks is Kyverno's load error, not a skip.
      return v === undefined ? err("context", `failed to fetch entry key=${name.split(".")[0] ?? name}`) : ok(v);
    },
    imageData: imageDataSource(options),
    // With no objects given, a read answers as Kyverno's CLI (its fake context: `pods "x" not found`,
    // `horizontalpodautoscalers.autoscaling resource not found`) and a warning says where objects come from.
    getResource: (r) => (haveObjects ? objects.get(r) : notGiven(objects.get(r), r.resource)),
    listResources: (r) => (haveObjects ? objects.list(r) : notGiven(objects.list(r), r.resource)),
    ...paramPort(options),
    ...(options.clusterGiven === true ? { clusterGiven: true } : {}),
    // A rule reading data nothing gave is an error naming the entry, never a pass on a default.
    unloadable: "error",
    // Where warnings reach the user (the CLI), entries nothing here loads are skipped as Kyverno's
    // CLI skips them, and the warning names each.
    ...(options.onWarning !== undefined ? { skipAsKyvernoCli: true } : {}),
  };
}

/**
 * The mocked answer for a call: an entry naming its method before one that names none (which
 * answers every method, as Kyverno's `METHOD:url` key is looked up before the plain `url`).
 */
function mockFor(mocks: readonly MockedApiCall[], req: ApiCallRequest): MockedApiCall | undefined {
  const sameTarget = (m: MockedApiCall): boolean =>
    (req.urlPath !== undefined && m.urlPath === req.urlPath) ||
    (req.serviceUrl !== undefined && m.url === req.serviceUrl);
  const candidates = mocks.filter(sameTarget);
  return (
    candidates.find((m) => m.method !== undefined && m.method.toUpperCase() === req.method) ??
    candidates.find((m) => m.method === undefined || m.method === "")
  );
}

function unmocked(req: ApiCallRequest): string {
  if (req.form === "http")
    return `http.${req.method === "GET" ? "Get" : "Post"} ${req.serviceUrl ?? ""}: no apiCallResponses entry answers ${req.method} ${req.serviceUrl ?? ""}, and there is no network offline`;
  return `${req.serviceUrl !== undefined && req.urlPath === undefined ? "HTTP call" : "apiCall"} ${req.urlPath ?? req.serviceUrl ?? ""}: ${UNAVAILABLE}`;
}

function paramPort(options: OfflineContextOptions): Pick<ContextSources, "paramObjects"> {
  const given = options.params;
  if (options.clusterGiven === true) {
    const cluster = options.resources ?? [];
    return {
      paramObjects: paramsOf(
        () => [...(given?.() ?? []), ...cluster],
        options.bindingParams === true,
        () => given?.() ?? [],
      ),
    };
  }
  if (given !== undefined && options.bindingParamObjects !== undefined)
    return { paramObjects: paramsOf(given, true, options.bindingParamObjects) };
  return given !== undefined ? { paramObjects: paramsOf(given, options.bindingParams === true) } : {};
}

/** With a kind: the given objects of that apiVersion and kind, in every namespace. Without: every given object, or none when bindings get none. */
function paramsOf(
  objects: () => readonly JsonObject[],
  forBindings: boolean,
  bindingObjects = objects,
): NonNullable<ContextSources["paramObjects"]> {
  return (kind?: ParamKind) => {
    if (kind === undefined) return ok(forBindings ? bindingObjects() : []);
    return ok(objects().filter((o) => o["apiVersion"] === kind.apiVersion && o["kind"] === kind.kind));
  };
}

/** Offline, `is_external_url` cannot resolve names: a host name counts as external. */
export const offlineHosts: HostResolver = { isExternalHost: () => ok(true) };

/** Image data from the context file, else the registry (`--registry`), else an error saying how to get it. */
function imageDataSource(options: OfflineContextOptions): ContextSources["imageData"] {
  const images = options.images ?? {};
  return (reference, request) => {
    // A context file's image data is CEL's metadata: it never stands for a digest, signatures or attestations.
    const data =
      request?.form === "digest" || request?.form === "signatures" || request?.form === "attestations"
        ? undefined
        : images[reference];
    if (data !== undefined) return ok(data);
    if (options.registry !== undefined)
      return options.registry.imageData(reference, request?.form ?? "metadata", request?.repository);
    const hint = options.noRegistryHint ?? CLI_REGISTRY_HINT;
    // Where warnings reach the user (the CLI's stderr, once), the result's message is Kyverno's own text.
    if (options.onWarning === undefined)
      return err("unavailable", `image data for ${reference} not found in the context (no registry access: ${hint})`);
    options.onWarning(`image data was not in the context and this run has no registry access: ${hint}`);
    return err("unavailable", `image data for ${reference} not found in the context`);
  };
}
