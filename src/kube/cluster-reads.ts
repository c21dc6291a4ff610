/**
 * The engine's ContextSources port for `bylaw apply --cluster`: context entries read the live
 * cluster, read-only, with the user's kubeconfig credentials, as Kyverno's CLI does with
 * `--cluster`:
 * - `configMap`: GET the ConfigMap; `{data, metadata}` as Kyverno stores it. An empty namespace is
 *   the policy's own, or `default` for a ClusterPolicy (api-path.ts checkConfigMapNamespace).
 * - `apiCall` GET of a `urlPath` (parsed strictly, api-path.ts): the API server's answer, as
 *   `kubectl get --raw` prints it. A failed call (not found, forbidden) is an error the entry's
 *   `default` may replace, as in Kyverno.
 * - CEL `resource.Get/List`: GET the object or the list (with a label selector).
 * - `apiCall` POST and `service` calls are refused (they could change the cluster or reach other
 *   hosts); globalReference and imageRegistry entries are not loadable here. Each is a rule error
 *   naming the entry, never a pass (imageRegistry entries: the CLI adds registry access with --registry).
 *
 * The engine is synchronous; reads are not. A read not made yet answers "pending" (never replaced
 * by a default) and is recorded; the caller `settle()`s the recorded reads and evaluates again,
 * which then finds the answers. Answers are kept for the whole run: one ConfigMap is read once.
 */
import {
  type ApiCallRequest,
  type ContextCaller,
  type ContextSources,
  err,
  type JsonValue,
  ok,
  type ResourceList,
  type ResourceRead,
  type Result,
} from "../engine/index.js";
import { checkApiCall, checkConfigMapNamespace } from "./api-path.js";
import { KubeError } from "./kube-client.js";

/** What the reads need of the API client (KubeClient): JSON GETs. */
interface JsonGetter {
  getJson(path: string): Promise<unknown>;
}

/** Reads made at once by `settle()`. */
const IN_PARALLEL = 8;

type Make = () => Promise<Result<JsonValue>>;

export class ClusterReads {
  private readonly answers = new Map<string, Result<JsonValue>>();
  private readonly waiting = new Map<string, Make>();
  private lastRound = false;

  constructor(private readonly client: JsonGetter) {}

  /** Reads recorded and not made yet. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Reads made so far. */
  get made(): number {
    return this.answers.size;
  }

  /** From now on a read not made yet is an error naming `why`, not "pending" (the caller's last evaluation). */
  finalRound(final: boolean): void {
    this.lastRound = final;
  }

  /** Makes the recorded reads, at most IN_PARALLEL at a time, and keeps their answers. */
  async settle(): Promise<void> {
    const todo = [...this.waiting];
    this.waiting.clear();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < todo.length) {
        const [key, make] = todo[next++] as [string, Make];
        this.answers.set(key, await make());
      }
    };
    await Promise.all(Array.from({ length: Math.min(IN_PARALLEL, todo.length) }, worker));
  }

  sources(): ContextSources {
    return {
      unloadable: "error",
      canLoad: (kind) => kind === "configMap" || kind === "apiCall",
      configMap: (namespace, name, caller) => this.configMap(namespace, name, caller),
      apiCall: (request, caller) => this.apiCall(request, caller),
      globalReference: (name) =>
        err(
          "unavailable",
          `globalReference ${name}: bylaw apply --cluster does not read GlobalContextEntries; give the value in a values file (-f)`,
        ),
      imageData: (reference) =>
        err(
          "unavailable",
          `image data for ${reference}: not read from the image registry (run bylaw apply with --registry to read it)`,
        ),
      getResource: (r, caller) => this.getResource(r, caller),
      listResources: (r, caller) => this.listResources(r, caller),
    };
  }

  private configMap(namespace: string, name: string, caller: ContextCaller | undefined): Result<JsonValue> {
    const ns = checkConfigMapNamespace(namespace, caller?.policyNamespace ?? "");
    if (!ns.ok) return ns;
    const what = `failed to get configmap ${ns.value}/${name}`;
    const path = `/api/v1/namespaces/${encodeURIComponent(ns.value)}/configmaps/${encodeURIComponent(name)}`;
    return this.read(path, what, async () => {
      const got = await this.get(path, `${what} :`);
      if (!got.ok) return got;
      const obj = got.value as { data?: JsonValue; metadata?: JsonValue };
      return ok({ data: obj.data ?? null, metadata: obj.metadata ?? {} });
    });
  }

  private apiCall(request: ApiCallRequest, caller: ContextCaller | undefined): Result<JsonValue> {
    if (request.serviceUrl !== undefined && request.urlPath === undefined) {
      return err(
        "unsupported",
        `apiCall.service ${request.serviceUrl}: bylaw apply --cluster reads only the Kubernetes API (urlPath GETs); it does not call services`,
      );
    }
    const checked = checkApiCall(request, caller?.policyNamespace ?? "");
    if (!checked.ok) return checked;
    const path = checked.value.path;
    const failed = `failed to ${request.method} resource with raw url: ${path}`;
    if (request.method !== "GET")
      return err(
        "unsupported",
        `${failed}: bylaw apply --cluster reads the cluster read-only and makes no apiCall ${request.method}`,
      );
    return this.read(path, failed, () => this.get(path, `${failed}:`));
  }

  private getResource(r: ResourceRead, _caller: ContextCaller | undefined): Result<JsonValue> {
    const path = `${collectionPath(r.apiVersion, r.resource, r.namespace)}/${encodeURIComponent(r.name)}`;
    const what = `failed to get ${r.resource} ${r.namespace === "" ? "" : `${r.namespace}/`}${r.name}`;
    return this.read(path, what, () => this.get(path, `${what}:`));
  }

  private listResources(r: ResourceList, _caller: ContextCaller | undefined): Result<JsonValue> {
    const labels = Object.entries(r.labels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(",");
    const path =
      collectionPath(r.apiVersion, r.resource, r.namespace) +
      (labels === "" ? "" : `?labelSelector=${encodeURIComponent(labels)}`);
    const what = `failed to list ${r.resource}${r.namespace === "" ? "" : ` in namespace ${r.namespace}`}`;
    return this.read(path, what, () => this.get(path, `${what}:`));
  }

  /** The answer for `key`, else "pending" after recording how to read it (an error in the last round). */
  private read(key: string, what: string, make: Make): Result<JsonValue> {
    const known = this.answers.get(key);
    if (known !== undefined) return known;
    if (this.lastRound)
      return err(
        "context",
        `${what}: not read: this resource's evaluation needed more rounds of dependent cluster reads than bylaw apply makes`,
      );
    this.waiting.set(key, make);
    return err("pending", `${what}: not read from the cluster yet`);
  }

  /** A GET as a Result; a failure names the path and says whether the cluster refused it. */
  private async get(path: string, prefix: string): Promise<Result<JsonValue>> {
    try {
      return ok((await this.client.getJson(path)) as JsonValue);
    } catch (e) {
      return err("context", `${prefix} ${describeKubeError(e)}`);
    }
  }
}

/** A client error for a message: the server's text, with what a 401/403 or no answer means. */
export function describeKubeError(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if (!(e instanceof KubeError)) return message;
  if (e.status === 401)
    return `unauthorized (401): the API server did not accept the kubeconfig's credentials: ${message}`;
  if (e.status === 403) return `forbidden (403): ${message}`;
  if (e.status === 0) return `no answer from the API server: ${message}`;
  return message;
}

function collectionPath(apiVersion: string, resource: string, namespace: string): string {
  const base = apiVersion.includes("/")
    ? `/apis/${apiVersion.split("/").map(encodeURIComponent).join("/")}`
    : `/api/${encodeURIComponent(apiVersion)}`;
  return namespace === ""
    ? `${base}/${encodeURIComponent(resource)}`
    : `${base}/namespaces/${encodeURIComponent(namespace)}/${encodeURIComponent(resource)}`;
}
