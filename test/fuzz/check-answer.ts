/**
 * Runs one fuzz case the way the webhook does (the HTTP layer's JSON parse, then the route's
 * handler, and for the validate routes also its batch handler among valid reviews) and checks the
 * answer: a 400 with a reason, or an AdmissionReview that echoes the request's uid, says allowed
 * true or false, and carries a well-formed status, patch and warnings.
 */
import { parseJson } from "../../src/server/http/index.js";
import type { BatchRouteHandler, HandlerResult, RouteHandler } from "../../src/server/http/index.js";
import { companions, type FuzzCase } from "./admission-review-generator.js";

export type Verdict =
  | { readonly kind: "answered"; readonly status: 200 | 400 }
  | { readonly kind: "crash"; readonly reason: string }
  | { readonly kind: "wrong-shape"; readonly reason: string };

export interface Routes {
  readonly routes: ReadonlyMap<string, RouteHandler>;
  readonly batchRoutes: ReadonlyMap<string, BatchRouteHandler>;
}

export async function runCase(c: FuzzCase, r: Routes): Promise<Verdict> {
  const parsed = parseJson(c.text);
  if (!parsed.ok)
    return typeof parsed.message === "string" && parsed.message !== ""
      ? { kind: "answered", status: 400 }
      : { kind: "wrong-shape", reason: "a parse failure without a message" };
  const handler = r.routes.get(c.path);
  if (handler === undefined) return { kind: "wrong-shape", reason: `no route ${c.path}` };
  let single: HandlerResult;
  try {
    single = await handler(parsed.value);
  } catch (e) {
    return { kind: "crash", reason: `handler threw: ${messageOf(e)}` };
  }
  const verdict = check(parsed.value, single);
  if (verdict.kind !== "answered") return verdict;
  const batch = r.batchRoutes.get(c.path);
  if (batch === undefined) return verdict;
  const others = companions(c.seed, c.path).map((t) => JSON.parse(t) as unknown);
  let results: HandlerResult[];
  try {
    // A review past its work slice finishes off the batch, so its answer may be a promise.
    results = await Promise.all(batch([...others, parsed.value]).map((answer) => Promise.resolve(answer)));
  } catch (e) {
    return { kind: "crash", reason: `batch handler threw: ${messageOf(e)}` };
  }
  if (results.length !== others.length + 1)
    return { kind: "wrong-shape", reason: `batch gave ${results.length} answers for ${others.length + 1} reviews` };
  for (const [i, result] of results.entries()) {
    const body = i < others.length ? others[i] : parsed.value;
    const v = check(body, result);
    if (v.kind !== "answered") return { kind: v.kind, reason: `in a batch: ${v.reason}` };
  }
  const own = results[others.length] as HandlerResult;
  if (own.status !== single.status)
    return { kind: "wrong-shape", reason: `batched, the review was answered ${own.status}; alone, ${single.status}` };
  return verdict;
}

function check(request: unknown, result: HandlerResult): Verdict {
  const wrong = (reason: string): Verdict => ({ kind: "wrong-shape", reason });
  if (result === null || typeof result !== "object") return wrong("the handler gave no result object");
  let text: string;
  try {
    text = JSON.stringify(result.body);
  } catch (e) {
    return wrong(`the answer cannot be serialised: ${messageOf(e)}`);
  }
  if (result.status === 400) {
    const error = (result.body as { error?: unknown }).error;
    return typeof error === "string" && error !== ""
      ? { kind: "answered", status: 400 }
      : wrong("a 400 without an error message");
  }
  if (result.status !== 200) return wrong(`status ${String((result as { status: unknown }).status)}`);
  const body = JSON.parse(text) as Record<string, unknown>;
  if (body["apiVersion"] !== "admission.k8s.io/v1" || body["kind"] !== "AdmissionReview")
    return wrong(`not an AdmissionReview: ${text.slice(0, 120)}`);
  const response = body["response"] as Record<string, unknown> | undefined;
  if (typeof response !== "object" || response === null) return wrong("no response");
  const uid = (request as { request?: { uid?: unknown } } | null)?.request?.uid;
  if (typeof uid !== "string" || response["uid"] !== uid)
    return wrong(`uid ${JSON.stringify(response["uid"])} for request uid ${JSON.stringify(uid)?.slice(0, 60)}`);
  if (typeof response["allowed"] !== "boolean") return wrong(`allowed is ${JSON.stringify(response["allowed"])}`);
  const status = response["status"] as { message?: unknown } | undefined;
  if (
    response["allowed"] === false &&
    (typeof status !== "object" || typeof status?.message !== "string" || status.message === "")
  )
    return wrong("a denial without a status message");
  if ((response["patch"] === undefined) !== (response["patchType"] === undefined))
    return wrong("patch and patchType must come together");
  if (response["patch"] !== undefined) {
    if (response["patchType"] !== "JSONPatch" || typeof response["patch"] !== "string")
      return wrong("patch is not a base64 JSONPatch");
    try {
      const ops = JSON.parse(Buffer.from(response["patch"], "base64").toString("utf8")) as unknown;
      if (!Array.isArray(ops)) return wrong("the patch is not a list of operations");
    } catch {
      return wrong("the patch does not decode to JSON");
    }
  }
  const warnings = response["warnings"];
  if (warnings !== undefined && (!Array.isArray(warnings) || !warnings.every((w) => typeof w === "string")))
    return wrong("warnings are not a list of strings");
  return { kind: "answered", status: 200 };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
