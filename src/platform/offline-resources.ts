/**
 * Objects a program without a cluster is given (a test's `context` file resources and
 * `clusterResources`), answering reads as Kyverno's CLI fake client does: by group/version,
 * plural resource name (the kind's lower-case plural, Kubernetes' guess), namespace and name.
 * They answer CEL `resource.Get/List`, classic `configMap` entries and `apiCall` GETs of an
 * object or a list URL path.
 */
import {
  err,
  isObject,
  ok,
  type JsonObject,
  type JsonValue,
  type ResourceList,
  type ResourceRead,
  type Result,
  guessedPlural,
} from "../engine/index.js";

function str(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}

function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf("/");
  return i < 0 ? "" : apiVersion.slice(0, i);
}

/** `configmaps` or `deployments.apps`, as Kubernetes names a GroupResource in its errors. */
function groupResource(apiVersion: string, resource: string): string {
  const g = groupOf(apiVersion);
  return g === "" ? resource : `${resource}.${g}`;
}

export class OfflineResources {
  /** `apiVersion resource` → objects. */
  readonly #byResource = new Map<string, JsonObject[]>();

  constructor(objects: readonly JsonObject[]) {
    for (const o of objects) {
      const key = `${str(o["apiVersion"])} ${guessedPlural(str(o["kind"]))}`;
      const list = this.#byResource.get(key) ?? [];
      list.push(o);
      this.#byResource.set(key, list);
    }
  }

  get size(): number {
    return this.#byResource.size;
  }

  get(r: ResourceRead): Result<JsonValue> {
    const found = (this.#byResource.get(`${r.apiVersion} ${r.resource}`) ?? []).find(
      (o) => namespaceOf(o) === r.namespace && nameOf(o) === r.name,
    );
    return found === undefined
      ? err("not-found", `${groupResource(r.apiVersion, r.resource)} "${r.name}" not found`)
      : ok(found);
  }

  /** `{items: [...]}`; a resource of which no object was given is an error, as the fake client answers. */
  list(r: ResourceList): Result<JsonValue> {
    const all = this.#byResource.get(`${r.apiVersion} ${r.resource}`);
    if (all === undefined) return err("not-found", `${groupResource(r.apiVersion, r.resource)} resource not found`);
    const labels = Object.entries(r.labels ?? {});
    const items = all.filter(
      (o) => (r.namespace === "" || namespaceOf(o) === r.namespace) && labels.every(([k, v]) => labelsOf(o)[k] === v),
    );
    return ok({ items });
  }

  /**
   * A GET of `/api/v1/[namespaces/NS/]RESOURCE[/NAME]` or `/apis/GROUP/VERSION/...`; undefined: not
   * such a path, or (`onlyServed`) a resource of which no object was given. Failures read as
   * Kyverno's fake client words them (`failed to get resource v1/Secret/NAME: secrets "NAME" not found`).
   */
  urlPath(path: string, o: { readonly onlyServed?: boolean } = {}): Result<JsonValue> | undefined {
    const parts =
      path
        .split("?")[0]
        ?.split("/")
        .filter((p) => p !== "") ?? [];
    const core = parts[0] === "api";
    if (!(core && parts.length >= 3) && !(parts[0] === "apis" && parts.length >= 4)) return undefined;
    const apiVersion = core ? (parts[1] ?? "") : `${parts[1] ?? ""}/${parts[2] ?? ""}`;
    let rest = parts.slice(core ? 2 : 3);
    let namespace = "";
    if (rest[0] === "namespaces" && rest.length >= 3) {
      namespace = rest[1] ?? "";
      rest = rest.slice(2);
    }
    const [resource = "", name] = rest;
    if (rest.length > 2) return undefined;
    if (o.onlyServed === true && !this.#byResource.has(`${apiVersion} ${resource}`)) return undefined;
    const kind = this.#kindOf(apiVersion, resource);
    if (name === undefined) {
      const listed = this.list({ apiVersion, resource, namespace });
      if (listed.ok) return ok({ apiVersion, metadata: {}, ...(listed.value as JsonObject) });
      const where =
        namespace === "" ? "(cluster-scoped or all namespaces)" : `in namespace ${JSON.stringify(namespace)}`;
      return err(listed.error.kind, `failed to list resources ${apiVersion}/${kind} ${where}: ${listed.error.message}`);
    }
    const got = this.get({ apiVersion, resource, namespace, name });
    return got.ok
      ? got
      : err(got.error.kind, `failed to get resource ${apiVersion}/${kind}/${name}: ${got.error.message}`);
  }

  /** The kind of a resource's objects, or Kyverno's fake client's guess from the plural (`secrets` → `Secret`). */
  #kindOf(apiVersion: string, resource: string): string {
    const kind = this.#byResource.get(`${apiVersion} ${resource}`)?.[0]?.["kind"];
    if (typeof kind === "string") return kind;
    const singular = resource.endsWith("ies")
      ? `${resource.slice(0, -3)}y`
      : resource.endsWith("es")
        ? resource.slice(0, -2)
        : resource.endsWith("s")
          ? resource.slice(0, -1)
          : resource;
    return singular.charAt(0).toUpperCase() + singular.slice(1);
  }
}

function metadataOf(o: JsonObject): JsonObject {
  return isObject(o["metadata"]) ? o["metadata"] : {};
}

function namespaceOf(o: JsonObject): string {
  return str(metadataOf(o)["namespace"]);
}

function nameOf(o: JsonObject): string {
  return str(metadataOf(o)["name"]);
}

function labelsOf(o: JsonObject): JsonObject {
  const l = metadataOf(o)["labels"];
  return isObject(l) ? l : {};
}
