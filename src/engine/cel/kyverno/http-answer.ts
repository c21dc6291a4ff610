import { isObject, type JsonValue } from "../../api/json.js";

/**
 * What Kyverno's CEL http library (`http.Get`/`http.Post`) gives a policy for an answer, whatever
 * its status: a JSON object body with `statusCode` added beside its fields, or `{body, statusCode}`
 * when the body is anything else (a list, a string, a number; null when it was not JSON): the shape
 * of ContextSources' `form: "http"` answer (kube/live-calls.ts gives the live one in the same shape).
 *
 * The offline (apiCallResponses) answer: issue 36 reports that Kyverno 1.19's CLI gives a mocked
 * `http.Get`/`http.Post` answer with `.body`. What the sources read (2026-11-30) settle, and what
 * they do not: the sdk's live library (extensions/cel/libs/http executeRequest, at the reference
 * commit and at a later one that adds Put and the SSRF blocklist) merges `statusCode` into an
 * object body and wraps anything else as `{body, statusCode}`, which this function does; the CLI's
 * Test type says apiCallResponses mock "CEL http.Get/http.Post and v1 policy context.apiCall"; its
 * store/contextloader wrapper (lookupMockResponse, apiCallMockPayload: status 0 → 200, a non-2xx
 * fails a v1 apiCall) handles only v1 apiCall entries. The CEL-side mock itself was not found in
 * the stored sources, so whether it answers `{body, statusCode}` for an object body too is not
 * settled: unchanged until it is (a policy reading `.body` of a mocked object answer gets an error,
 * never a silent pass).
 */
export function httpAnswer(statusCode: number, body: JsonValue | undefined): JsonValue {
  return isObject(body) ? { ...body, statusCode } : { body: body ?? null, statusCode };
}
