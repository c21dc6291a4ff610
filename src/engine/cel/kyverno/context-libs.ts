/**
 * Kyverno's CEL libraries that read outside data (kyverno/sdk extensions/cel/libs: resource,
 * globalcontext, http, imagedata), answered through the engine's ContextSources port: live in the
 * cluster, from a test's inputs offline. Each is a namespace object (`resource.Get(...)`) with its
 * Pascal-case and, since Kyverno 1.18, camel-case names. A call the port cannot answer is an
 * evaluation error naming the call and what is missing, never a value the policy did not read.
 * `http.Client(caBundle)` gives an http value whose Get/Post carry that PEM bundle with the request
 * (ApiCallRequest.caBundle: the cluster's egress client trusts it; offline mocks ignore it).
 * Not declared (a compile error naming them): resource.ToGVR and the GVR overloads.
 */
import type { JsonValue } from "../../api/json.js";
import type { Result } from "../../api/result.js";
import type { ApiCallRequest } from "../../ports.js";
import { CelFunctionError, namespace, type CelFunction, type CelLibrary } from "../library.js";
import { fromCel, toCel } from "../values.js";
import { servicesFor, type CelServices, type ServiceSlot } from "./services.js";

const RESOURCE = "kyverno.ResourceContext";
const GLOBAL = "kyverno.GlobalContext";
const HTTP = "kyverno.HttpContext";
const IMAGE_DATA = "kyverno.ImageDataContext";

type Handler = (...args: never[]) => unknown;

/** `Name` and `name` for each overload, as Kyverno 1.18+ declares them. */
function both(type: string, name: string, rest: string, handler: Handler): CelFunction[] {
  const camel = name.charAt(0).toLowerCase() + name.slice(1);
  return [name, camel].map((n) => ({ signature: `${type}.${n}${rest}`, handler }));
}

function value(r: Result<JsonValue>, what: string): unknown {
  if (!r.ok) throw new CelFunctionError(`${what}: ${r.error.message}`);
  return toCel(r.value);
}

function caller(s: CelServices): { policyNamespace: string } {
  return { policyNamespace: s.policyNamespace };
}

function labelsOf(m: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (m instanceof Map) for (const [k, v] of m) out[String(k)] = String(v);
  else if (m !== null && typeof m === "object") for (const [k, v] of Object.entries(m)) out[k] = String(v);
  return out;
}

function resourceLibrary(slot: ServiceSlot, namespaced: boolean): CelLibrary {
  const get = (apiVersion: string, resource: string, ns: string, name: string): unknown => {
    const s = servicesFor(slot, "resource.Get");
    const context = s.ports.context;
    if (context.getResource === undefined)
      throw new CelFunctionError(
        `failed to get resource: resource.Get("${apiVersion}", "${resource}", "${ns}", "${name}") needs objects to read, and none are available here`,
      );
    return value(
      context.getResource({ apiVersion, resource, namespace: ns, name }, caller(s)),
      "failed to get resource",
    );
  };
  const list = (apiVersion: string, resource: string, ns: string, labels: unknown): unknown => {
    const s = servicesFor(slot, "resource.List");
    const context = s.ports.context;
    if (context.listResources === undefined)
      throw new CelFunctionError(
        `failed to list resource: resource.List("${apiVersion}", "${resource}", "${ns}") needs objects to read, and none are available here`,
      );
    return value(
      context.listResources({ apiVersion, resource, namespace: ns, labels: labelsOf(labels) }, caller(s)),
      "failed to list resource",
    );
  };
  /**
   * resource.Post(apiVersion, resource, [namespace,] data): a create (Kyverno's typical use is a
   * SubjectAccessReview), made as an apiCall POST to the object's collection path, so it takes the
   * same road: recorded and made by the server under its deadline and tenant rules, answered from a
   * test's apiCallResponses (urlPath, method POST) offline.
   */
  const post = (apiVersion: string, resource: string, ns: string, data: unknown): unknown => {
    const s = servicesFor(slot, "resource.Post");
    const body = fromCel(data);
    const entries =
      body !== null && typeof body === "object" && !Array.isArray(body)
        ? Object.entries(body).map(([key, value]) => ({ key, value }))
        : [];
    const urlPath = `${apiVersion.includes("/") ? "/apis" : "/api"}/${apiVersion}${ns === "" ? "" : `/namespaces/${ns}`}/${resource}`;
    return value(
      s.ports.context.apiCall({ urlPath, method: "POST", data: entries }, caller(s)),
      "failed to create resource",
    );
  };
  const own = (): string => servicesFor(slot, "resource").policyNamespace;
  const functions: CelFunction[] = namespaced
    ? [
        ...both(
          RESOURCE,
          "Get",
          "(string, string, string): map<string, dyn>",
          (_: unknown, v: string, r: string, n: string) => get(v, r, own(), n),
        ),
        ...both(RESOURCE, "List", "(string, string): map<string, dyn>", (_: unknown, v: string, r: string) =>
          list(v, r, own(), {}),
        ),
        ...both(
          RESOURCE,
          "List",
          "(string, string, map<string, string>): map<string, dyn>",
          (_: unknown, v: string, r: string, l: unknown) => list(v, r, own(), l),
        ),
        ...both(
          RESOURCE,
          "Post",
          "(string, string, map<string, dyn>): map<string, dyn>",
          (_: unknown, v: string, r: string, d: unknown) => post(v, r, own(), d),
        ),
      ]
    : [
        ...both(
          RESOURCE,
          "Get",
          "(string, string, string, string): map<string, dyn>",
          (_: unknown, v: string, r: string, ns: string, n: string) => get(v, r, ns, n),
        ),
        ...both(
          RESOURCE,
          "List",
          "(string, string, string): map<string, dyn>",
          (_: unknown, v: string, r: string, ns: string) => list(v, r, ns, {}),
        ),
        ...both(
          RESOURCE,
          "List",
          "(string, string, string, map<string, string>): map<string, dyn>",
          (_: unknown, v: string, r: string, ns: string, l: unknown) => list(v, r, ns, l),
        ),
        ...both(
          RESOURCE,
          "Post",
          "(string, string, string, map<string, dyn>): map<string, dyn>",
          (_: unknown, v: string, r: string, ns: string, d: unknown) => post(v, r, ns, d),
        ),
        ...both(
          RESOURCE,
          "Post",
          "(string, string, map<string, dyn>): map<string, dyn>",
          (_: unknown, v: string, r: string, d: unknown) => post(v, r, "", d),
        ),
      ];
  return { name: "kyverno.resource", ...namespace("resource", RESOURCE), functions };
}

function globalContextLibrary(slot: ServiceSlot): CelLibrary {
  const get = (name: string, projection: string): unknown => {
    const s = servicesFor(slot, "globalContext.Get");
    // Whose expression asks decides what it may read: a namespaced policy's (or exception's) read is
    // refused by the live context, as its legacy globalReference is (tenant-isolation.md rule 3).
    const asker = s.authorNamespace !== undefined && s.authorNamespace !== "" ? s.authorNamespace : s.policyNamespace;
    const r = s.ports.context.globalReference(name, { policyNamespace: asker });
    if (!r.ok) throw new CelFunctionError(`failed to get global reference: ${r.error.message}`);
    if (projection === "") return toCel(r.value);
    const data = r.value;
    if (data === null || typeof data !== "object" || Array.isArray(data))
      throw new CelFunctionError(
        `failed to get global reference: projection "${projection}" not found in global context entry "${name}": stored value is not an object`,
      );
    const v = data[projection];
    if (v === undefined)
      throw new CelFunctionError(
        `failed to get global reference: projection "${projection}" not found in global context entry "${name}"`,
      );
    return toCel(v);
  };
  return {
    name: "kyverno.globalcontext",
    ...namespace("globalContext", GLOBAL),
    functions: [
      ...both(GLOBAL, "Get", "(string): dyn", (_: unknown, n: string) => get(n, "")),
      ...both(GLOBAL, "Get", "(string, string): dyn", (_: unknown, n: string, p: string) => get(n, p)),
    ],
  };
}

/** Kyverno's `http` value: the default client, or one `http.Client(caBundle)` made. */
class HttpContext {
  constructor(readonly caBundle?: string) {}
}
Object.defineProperty(HttpContext, "name", { value: HTTP });

function httpLibrary(slot: ServiceSlot): CelLibrary {
  const call = (client: HttpContext, method: "GET" | "POST", url: string, body: unknown, headers: unknown): unknown => {
    const s = servicesFor(slot, `http.${method === "GET" ? "Get" : "Post"}`);
    const request: ApiCallRequest = {
      form: "http",
      serviceUrl: url,
      method,
      ...(method === "POST" ? { data: fromCel(body) } : {}),
      headers: Object.entries(labelsOf(headers)).map(([key, v]) => ({ key, value: v })),
      ...(client.caBundle !== undefined ? { caBundle: client.caBundle } : {}),
    };
    return value(s.ports.context.apiCall(request, caller(s)), "request failed");
  };
  return {
    name: "kyverno.http",
    types: [{ name: HTTP, ctor: HttpContext }],
    constants: [{ name: "http", type: HTTP, value: new HttpContext() }],
    functions: [
      ...both(HTTP, "Get", "(string): dyn", (c: HttpContext, u: string) => call(c, "GET", u, null, {})),
      ...both(HTTP, "Get", "(string, map<string, string>): dyn", (c: HttpContext, u: string, h: unknown) =>
        call(c, "GET", u, null, h),
      ),
      ...both(HTTP, "Post", "(string, dyn): dyn", (c: HttpContext, u: string, b: unknown) => call(c, "POST", u, b, {})),
      ...both(
        HTTP,
        "Post",
        "(string, dyn, map<string, string>): dyn",
        (c: HttpContext, u: string, b: unknown, h: unknown) => call(c, "POST", u, b, h),
      ),
      ...both(HTTP, "Client", `(string): ${HTTP}`, (_: HttpContext, ca: string) => new HttpContext(ca)),
    ],
  };
}

function imageDataLibrary(slot: ServiceSlot): CelLibrary {
  const get = (reference: string): unknown => {
    const s = servicesFor(slot, "image.GetMetadata");
    return value(
      s.ports.context.imageData(reference, { form: "metadata", caller: caller(s) }),
      "failed to get image data",
    );
  };
  return {
    name: "kyverno.imagedata",
    ...namespace("image", IMAGE_DATA),
    functions: both(IMAGE_DATA, "GetMetadata", "(string): dyn", (_: unknown, r: string) => get(r)),
  };
}

export function contextLibraries(slot: ServiceSlot, namespaced: boolean): CelLibrary[] {
  return [resourceLibrary(slot, namespaced), globalContextLibrary(slot), httpLibrary(slot), imageDataLibrary(slot)];
}
