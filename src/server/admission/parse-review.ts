/**
 * Strict checking of an AdmissionReview body (already JSON-parsed by the HTTP layer). Every problem
 * names the field, says what was expected and shows what came, e.g.
 * `request.operation: must be one of CREATE, UPDATE, DELETE, CONNECT (got "PATCH")`.
 * Never throws, whatever the input.
 */
import type { JsonObject, Operation } from "../../engine/index.js";
import {
  ADMISSION_API_VERSION,
  OPERATIONS,
  type AdmissionRequestJson,
  type GroupVersionKindJson,
  type GroupVersionResourceJson,
  type UserInfoJson,
} from "./types.js";

type ParsedReview = { ok: true; request: AdmissionRequestJson } | { ok: false; error: string };

class ReviewError extends Error {}

export function parseReview(body: unknown): ParsedReview {
  try {
    return { ok: true, request: checkReview(body) };
  } catch (e) {
    if (e instanceof ReviewError) return { ok: false, error: e.message };
    return { ok: false, error: "body: not a readable AdmissionReview" };
  }
}

function checkReview(body: unknown): AdmissionRequestJson {
  if (!isRecord(body)) fail("body", `must be a JSON object (an AdmissionReview)`, body);
  if (body["apiVersion"] !== ADMISSION_API_VERSION)
    fail("apiVersion", `must be ${JSON.stringify(ADMISSION_API_VERSION)}`, body["apiVersion"]);
  if (body["kind"] !== "AdmissionReview") fail("kind", `must be "AdmissionReview"`, body["kind"]);
  const request = body["request"];
  if (request === undefined || request === null) fail("request", "is required");
  if (!isRecord(request)) fail("request", "must be an object", request);
  return checkRequest(request);
}

function checkRequest(r: Record<string, unknown>): AdmissionRequestJson {
  const uid = r["uid"];
  if (typeof uid !== "string" || uid === "") fail("request.uid", "must be a non-empty string", uid);
  const operation = r["operation"];
  if (typeof operation !== "string" || !(OPERATIONS as readonly string[]).includes(operation)) {
    fail("request.operation", `must be one of ${OPERATIONS.join(", ")}`, operation);
  }
  const kind = gvk(r["kind"], "request.kind");
  const resource = optional(r, "resource", gvr);
  const requestKind = optional(r, "requestKind", gvk);
  const requestResource = optional(r, "requestResource", gvr);
  const subResource = optional(r, "subResource", str);
  const requestSubResource = optional(r, "requestSubResource", str);
  const name = optional(r, "name", str);
  const namespace = optional(r, "namespace", str);
  const object = optional(r, "object", objectOrNull);
  const oldObject = optional(r, "oldObject", objectOrNull);
  const dryRun = optional(r, "dryRun", bool);
  const options = optional(r, "options", objectOrNull);
  const userInfo = optional(r, "userInfo", user) ?? { username: "", groups: [] };
  // The fields present are set one by one (in this order), not spread from conditional
  // literals: this runs once per review, and each such spread builds and copies an object.
  const out: { -readonly [K in keyof AdmissionRequestJson]: AdmissionRequestJson[K] } = {
    uid,
    kind,
    operation: operation as Operation,
    userInfo,
  };
  if (resource !== undefined) out.resource = resource;
  if (subResource !== undefined) out.subResource = subResource;
  if (requestKind !== undefined) out.requestKind = requestKind;
  if (requestResource !== undefined) out.requestResource = requestResource;
  if (requestSubResource !== undefined) out.requestSubResource = requestSubResource;
  if (name !== undefined) out.name = name;
  if (namespace !== undefined) out.namespace = namespace;
  if (object !== undefined) out.object = object;
  if (oldObject !== undefined) out.oldObject = oldObject;
  if (dryRun !== undefined) out.dryRun = dryRun;
  if (options !== undefined) out.options = options;
  return out;
}

/** A field that may be absent (or JSON null, which Go's decoder treats as absent for these types). */
function optional<T>(r: Record<string, unknown>, key: string, check: (v: unknown, path: string) => T): T | undefined {
  const v = r[key];
  if (v === undefined) return undefined;
  if (v === null && check !== objectOrNull) return undefined;
  return check(v, `request.${key}`);
}

function gvk(v: unknown, path: string): GroupVersionKindJson {
  if (v === undefined || v === null) fail(path, "is required ({group, version, kind})");
  if (!isRecord(v)) fail(path, "must be an object {group, version, kind}", v);
  const group = v["group"] ?? "";
  const version = v["version"];
  const kind = v["kind"];
  if (typeof group !== "string") fail(`${path}.group`, "must be a string", group);
  if (typeof version !== "string" || version === "") fail(`${path}.version`, "must be a non-empty string", version);
  if (typeof kind !== "string" || kind === "") fail(`${path}.kind`, "must be a non-empty string", kind);
  return { group, version, kind };
}

function gvr(v: unknown, path: string): GroupVersionResourceJson {
  if (!isRecord(v)) fail(path, "must be an object {group, version, resource}", v);
  const group = v["group"] ?? "";
  const version = v["version"];
  const resource = v["resource"];
  if (typeof group !== "string") fail(`${path}.group`, "must be a string", group);
  if (typeof version !== "string" || version === "") fail(`${path}.version`, "must be a non-empty string", version);
  if (typeof resource !== "string" || resource === "") fail(`${path}.resource`, "must be a non-empty string", resource);
  return { group, version, resource };
}

function user(v: unknown, path: string): UserInfoJson {
  if (!isRecord(v)) fail(path, "must be an object {username, uid, groups, extra}", v);
  const username = v["username"] ?? "";
  if (typeof username !== "string") fail(`${path}.username`, "must be a string", username);
  const uid = v["uid"] ?? undefined;
  if (uid !== undefined && typeof uid !== "string") fail(`${path}.uid`, "must be a string", uid);
  const groups = stringList(v["groups"] ?? [], `${path}.groups`);
  const rawExtra = v["extra"] ?? undefined;
  let extra: Record<string, readonly string[]> | undefined;
  if (rawExtra !== undefined) {
    if (!isRecord(rawExtra)) fail(`${path}.extra`, "must be a map of string lists", rawExtra);
    extra = {};
    for (const [k, list] of Object.entries(rawExtra)) extra[k] = stringList(list ?? [], `${path}.extra.${k}`);
  }
  return { username, groups, ...(uid !== undefined ? { uid } : {}), ...(extra !== undefined ? { extra } : {}) };
}

function stringList(v: unknown, path: string): string[] {
  if (!Array.isArray(v)) fail(path, "must be a list of strings", v);
  v.forEach((item, i) => {
    if (typeof item !== "string") fail(`${path}[${i}]`, "must be a string", item);
  });
  return v as string[];
}

function str(v: unknown, path: string): string {
  if (typeof v !== "string") fail(path, "must be a string", v);
  return v;
}

function bool(v: unknown, path: string): boolean {
  if (typeof v !== "boolean") fail(path, "must be true or false", v);
  return v;
}

function objectOrNull(v: unknown, path: string): JsonObject | null {
  if (v === null) return null;
  if (!isRecord(v)) fail(path, "must be an object (a Kubernetes resource) or null", v);
  return v as JsonObject;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function fail(path: string, expected: string, ...got: [unknown?]): never {
  throw new ReviewError(got.length === 0 ? `${path}: ${expected}` : `${path}: ${expected} (got ${describe(got[0])})`);
}

/** A short, safe rendering of what came instead. */
function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  switch (typeof v) {
    case "string":
      return v.length > 60 ? `${JSON.stringify(v.slice(0, 60))}…` : JSON.stringify(v);
    case "number":
    case "boolean":
      return String(v);
    case "object":
      return "an object";
    default:
      return `a ${typeof v}`;
  }
}
