import { isObject, type JsonValue } from "../../api/json.js";

/**
 * What Kyverno's CEL http library (`http.Get`/`http.Post`) gives a policy for an answer, whatever
 * its status: a JSON object body with `statusCode` added beside its fields, or `{body, statusCode}`
 * when the body is anything else (a list, a string, a number; null when it was not JSON): the shape
 * of ContextSources' `form: "http"` answer.
 *
 * The live answer only (kube/live-calls.ts). Offline, Kyverno's CLI answers a mocked URL with the
 * apiCallResponses entry's `response` as written (`{statusCode, body}`; pkg/cel/libs/http_mock.go
 * returns the stored value unchanged), so a policy tested offline reads `.body` (platform/offline-context.ts).
 */
export function httpAnswer(statusCode: number, body: JsonValue | undefined): JsonValue {
  return isObject(body) ? { ...body, statusCode } : { body: body ?? null, statusCode };
}
