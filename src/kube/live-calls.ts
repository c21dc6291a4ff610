/**
 * The apiCall entries the live context answers with a network call, not from a cache
 * (docs/adr/0012): `method: POST` to the API server (a ClusterPolicy's only; as Bylaw's
 * ServiceAccount), `service` calls and CEL `http.Get/Post` (through the egress filter,
 * egress/egress-client.ts, with no token). Each goes through the review's record (review-calls.ts):
 * made at most once per review, "pending" until the server has made it.
 */
import {
  err,
  isObject,
  ok,
  type ApiCallRequest,
  type CompiledPolicy,
  type JsonObject,
  type JsonValue,
  type Result,
  textOf,
  httpAnswer,
} from "../engine/index.js";
import { callService, requestService, type EgressOptions } from "./egress/egress-client.js";
import { KubeError } from "./kube-client.js";
import type { CallScopes } from "./review-calls.js";

export interface NetworkCalls {
  readonly scopes: CallScopes;
  /** POSTs a JSON body to the API server, as Bylaw's ServiceAccount. */
  readonly post: (path: string, body: JsonValue) => Promise<unknown>;
  readonly egress: EgressOptions;
}

/** A POST of a checked API server path, through the review's record. */
export function postToApiServer(
  calls: NetworkCalls | undefined,
  path: string,
  request: ApiCallRequest,
): Result<JsonValue> {
  const failed = `failed to POST resource with raw url: ${path}`;
  const record = calls?.scopes.current();
  if (calls === undefined || record === undefined)
    return err("unsupported", `${failed}: apiCall POST is answered only while Bylaw serves an admission review`);
  const body = dataOf(request.data);
  return record.answer(JSON.stringify(["POST", path, body]), failed, async () => {
    try {
      return ok((await calls.post(path, body)) as JsonValue);
    } catch (e) {
      const status = e instanceof KubeError ? e.status : 0;
      const message = e instanceof Error ? e.message : String(e);
      return err("context", `${failed}: ${status === 401 || status === 403 ? "permission denied: " : ""}${message}`);
    }
  });
}

/** A service call, through the review's record and the egress filter. */
export function callServiceOnce(
  calls: NetworkCalls | undefined,
  request: ApiCallRequest & { readonly serviceUrl: string },
): Result<JsonValue> {
  const what = `failed to ${request.method} service ${shownUrl(request.serviceUrl)}`;
  const record = calls?.scopes.current();
  if (calls === undefined || record === undefined)
    return err("unsupported", `${what}: apiCall.service is answered only while Bylaw serves an admission review`);
  const body = request.method === "POST" ? JSON.stringify(dataOf(request.data)) : undefined;
  const key = JSON.stringify([
    "SERVICE",
    request.method,
    request.serviceUrl,
    body ?? null,
    request.headers ?? [],
    request.caBundle ?? "",
  ]);
  return record.answer(key, what, (signal) =>
    callService(
      {
        method: request.method,
        url: request.serviceUrl,
        ...(request.headers !== undefined ? { headers: request.headers } : {}),
        ...(request.caBundle !== undefined ? { caBundle: request.caBundle } : {}),
        ...(body !== undefined ? { body } : {}),
      },
      calls.egress,
      signal,
    ),
  );
}

/**
 * A CEL `http.Get/Post` call (Kyverno's http library), through the review's record and the egress
 * filter, with only the headers the policy gives (never a token). The answer is Kyverno's: the JSON
 * body with `statusCode` added, or `{body, statusCode}` when the body is not an object (null when it
 * is not JSON), whatever the status. A namespaced policy makes no such call (tenant-isolation.md
 * rule 3): refused before anything is recorded.
 */
export function callHttpOnce(
  calls: NetworkCalls | undefined,
  request: ApiCallRequest & { readonly serviceUrl: string },
  policyNamespace: string,
): Result<JsonValue> {
  const what = `HTTP ${request.method} ${shownUrl(request.serviceUrl)}`;
  if (policyNamespace !== "") {
    return err(
      "refused",
      `${what}: http calls are not allowed in namespaced policies (this one is in namespace "${policyNamespace}"): a namespaced policy may not reach outside the cluster's objects of its namespace`,
    );
  }
  const record = calls?.scopes.current();
  if (calls === undefined || record === undefined)
    return err("unsupported", `${what}: CEL http calls are answered only while Bylaw serves an admission review`);
  const body = request.method === "POST" ? JSON.stringify(request.data ?? null) : undefined;
  const key = JSON.stringify([
    "HTTP",
    request.method,
    request.serviceUrl,
    body ?? null,
    request.headers ?? [],
    request.caBundle ?? "",
  ]);
  return record.answer(key, what, async (signal) => {
    // http.Client(caBundle): the bundle is the CA this call trusts.
    const call = {
      method: request.method,
      url: request.serviceUrl,
      ...(request.headers !== undefined ? { headers: request.headers } : {}),
      ...(body !== undefined ? { body } : {}),
      ...(request.caBundle !== undefined ? { caBundle: request.caBundle } : {}),
    };
    const answer = await requestService(call, calls.egress, signal);
    if (!answer.ok) return answer;
    const { status, body: data } = answer.value;
    return ok(httpAnswer(status, data));
  });
}

/** Kyverno's request body: the `data` list as one object, `{key: value, …}`. */
export function dataOf(data: JsonValue | undefined): JsonObject {
  const out: Record<string, JsonValue> = {};
  if (Array.isArray(data))
    for (const d of data) if (isObject(d) && typeof d["key"] === "string") out[d["key"]] = d["value"] ?? null;
  return out;
}

/** A URL for a message: scheme, host and path only (no user info or query). */
function shownUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return JSON.stringify(raw.slice(0, 200));
  }
}

const VARIABLE_FREE = /\{\{[^}]*\}\}/g;
/**
 * A CEL call that goes over the network: Kyverno's image data library (`image.GetMetadata(…)`,
 * `image.getMetadata(…)`), http library (`http.Get(…)`, `http.post(…)`, `http.Client(…)`, …) or
 * `resource.Post(…)` (a create through the API server, made as an apiCall POST).
 */
const CEL_NETWORK_CALL =
  /\b(?:image\s*\.\s*[Gg]etMetadata|http\s*\.\s*(?:[Gg]et|[Pp]ost|[Cc]lient)|resource\s*\.\s*[Pp]ost)\s*\(/;

/**
 * Whether a policy document has context entries answered by a network call (apiCall POST or
 * service, imageRegistry, CEL image.GetMetadata and http.Get/Post/Client) or verifyImages rules (signatures
 * and digests from registries), found without evaluating it: the method and the
 * presence of `service` are literal.
 */
export function usesNetworkCalls(policy: JsonValue): boolean {
  const visit = (v: JsonValue | undefined, inContext: boolean): boolean => {
    if (typeof v === "string") return CEL_NETWORK_CALL.test(v);
    if (Array.isArray(v)) return v.some((x) => visit(x, inContext));
    if (!isObject(v)) return false;
    const call = inContext ? v["apiCall"] : undefined;
    if (
      isObject(call) &&
      (call["service"] !== undefined || textOf(call["method"] ?? "GET").replace(VARIABLE_FREE, "POST") === "POST")
    )
      return true;
    if (inContext && isObject(v["imageRegistry"])) return true;
    // verifyImages reads signatures and digests from image registries.
    if (!inContext && Array.isArray(v["verifyImages"]) && v["verifyImages"].length > 0) return true;
    return Object.entries(v).some(([k, x]) => visit(x, inContext || k === "context"));
  };
  return visit(policy, false);
}

/**
 * `usesNetworkCalls` for a compiled policy: its own document, and for the CEL kinds the expressions
 * of their compiled programs.
 */
export function policyUsesNetworkCalls(policy: CompiledPolicy): boolean {
  return (
    // An ImageValidatingPolicy reads signatures, attestations and digests from registries.
    policy.language === "image-validating" ||
    usesNetworkCalls(policy.document as unknown as JsonValue) ||
    (policy.language === "kyverno"
      ? policy.rules.some((r) => r.cel !== undefined && programsCallNetwork(r.cel, 0, new Set()))
      : policy.language === "cel" &&
        policy.validating.programs.some((p) => programsCallNetwork(p.program, 0, new Set())))
  );
}

/** Whether a compiled CEL policy holds a program (`{expression}`) calling image.GetMetadata or http.*; a shallow walk. */
function programsCallNetwork(x: unknown, depth: number, seen: Set<object>): boolean {
  if (typeof x !== "object" || x === null || depth > 5 || seen.has(x)) return false;
  seen.add(x);
  const expression = (x as { expression?: unknown }).expression;
  if (typeof expression === "string" && CEL_NETWORK_CALL.test(expression)) return true;
  const children = Array.isArray(x) ? x : Object.getPrototypeOf(x) === Object.prototype ? Object.values(x) : [];
  return children.some((c) => programsCallNetwork(c, depth + 1, seen));
}
