/**
 * AdmissionReview answers, shaped as Kyverno's (`pkg/utils/admission/response.go`): a denial carries
 * `status: {status: "Failure", message}` and no code (the API server supplies one); a mutation carries
 * the JSON patch, base64-encoded, with `patchType: JSONPatch`, only when there is a change; warnings
 * appear only when there are some.
 */
import { Buffer } from "node:buffer";
import type { JsonPatchOp } from "../../engine/index.js";
import {
  ADMISSION_API_VERSION,
  type AdmissionResponseJson,
  type AdmissionReviewJson,
  type HandlerResult,
} from "./types.js";

function review(response: AdmissionResponseJson): AdmissionReviewJson {
  return { apiVersion: ADMISSION_API_VERSION, kind: "AdmissionReview", response };
}

export function allowed(uid: string, warnings: readonly string[] = []): AdmissionReviewJson {
  return review({ uid, allowed: true, ...(warnings.length > 0 ? { warnings } : {}) });
}

export function denied(uid: string, message: string, warnings: readonly string[] = []): AdmissionReviewJson {
  return review({
    uid,
    allowed: false,
    status: { status: "Failure", message },
    ...(warnings.length > 0 ? { warnings } : {}),
  });
}

export function patched(
  uid: string,
  patch: readonly JsonPatchOp[],
  warnings: readonly string[] = [],
): AdmissionReviewJson {
  if (patch.length === 0) return allowed(uid, warnings);
  const encoded = Buffer.from(JSON.stringify(patch), "utf8").toString("base64");
  return review({
    uid,
    allowed: true,
    patchType: "JSONPatch",
    patch: encoded,
    ...(warnings.length > 0 ? { warnings } : {}),
  });
}

export function badRequest(error: string): HandlerResult {
  return { status: 400, body: { error } };
}
