/**
 * An API server path from a policy (`apiCall.urlPath`), parsed strictly and once, and the tenant
 * rule on it (docs/adr/0009, tenant-isolation.md rules 1-3): a namespaced Policy reaches only its own
 * namespace. The path is percent-decoded exactly once; a malformed escape, an encoded `/`, `.` or
 * `%`, a dot-segment, an empty segment, `?` or `#` (raw or encoded) rejects it. The namespace is
 * read from the path's structure (`/api/v1/namespaces/<ns>/…`, `/apis/<g>/<v>/namespaces/<ns>/…`),
 * never by matching the string, and the path sent is rebuilt from exactly the checked segments.
 */
import { err, ok, type Result } from "../engine/index.js";

/** A resource path: a collection (`name` absent) or one object, possibly a subresource. */
interface ResourcePath {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  /** Absent for a cluster-wide path (a cluster-scoped resource, or all namespaces). */
  readonly namespace?: string;
  readonly name?: string;
  readonly subresource?: string;
}

interface CheckedPath {
  /** The path to send: the checked segments, each re-encoded. */
  readonly path: string;
  /** The decoded segments. */
  readonly segments: readonly string[];
  /** The resource the path names, when it names one (undefined for discovery paths like `/api/v1`). */
  readonly resource?: ResourcePath;
}

const ESCAPE = /%([0-9A-Fa-f]{2})/g;
/** Bytes that must never arrive encoded: `/`, `.`, `%`, `?`, `#`, and control characters. */
const FORBIDDEN_ENCODED = new Set(["2f", "2e", "25", "3f", "23", "5c"]);

/** Parses a path strictly (see the file comment). Any problem is an error naming it. */
export function parseApiPath(raw: string): Result<CheckedPath> {
  const bad = (why: string): Result<CheckedPath> =>
    err("api-path", `apiCall urlPath ${JSON.stringify(raw)} is refused: ${why}`);
  if (raw.length === 0 || raw.length > 2048) return bad("it must be 1 to 2048 characters");
  if (!raw.startsWith("/")) return bad("it must start with /");
  if (raw.includes("?") || raw.includes("#")) return bad("query strings (?) and fragments (#) are not allowed");
  if (raw.includes("\\")) return bad("backslashes are not allowed");
  if (/[\u0000-\u0020\u007f-\uffff]/.test(raw))
    return bad("control characters, spaces and non-ASCII characters must not appear");
  // Every % must start a two-hex-digit escape (malformed escapes reject).
  if (/%(?![0-9A-Fa-f]{2})/.test(raw)) return bad("it holds a malformed percent-escape");
  for (const m of raw.matchAll(ESCAPE)) {
    const hex = (m[1] ?? "").toLowerCase();
    if (FORBIDDEN_ENCODED.has(hex) || parseInt(hex, 16) < 0x21 || parseInt(hex, 16) > 0x7e)
      return bad(`the encoded byte %${hex.toUpperCase()} is not allowed`);
  }
  const rawSegments = raw.slice(1).split("/");
  if (rawSegments.length > 0 && rawSegments[rawSegments.length - 1] === "") rawSegments.pop();
  const segments: string[] = [];
  for (const s of rawSegments) {
    if (s === "") return bad("it holds an empty segment (//)");
    // Decoded once; the escapes left are printable ASCII other than / . % ? # \ (checked above).
    const decoded = s.replace(ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (decoded === "." || decoded === "..") return bad("dot-segments (. and ..) are not allowed");
    segments.push(decoded);
  }
  const path = "/" + segments.map((s) => encodeURIComponent(s)).join("/");
  const resource = resourceOf(segments);
  return ok(resource === undefined ? { path, segments } : { path, segments, resource });
}

/** What the path's structure names: /api/v1/…, /apis/<g>/<v>/…, then [namespaces/<ns>/]<resource>[/<name>[/<sub>]]. */
function resourceOf(segments: readonly string[]): ResourcePath | undefined {
  let group: string;
  let version: string;
  let rest: readonly string[];
  if (segments[0] === "api" && segments.length >= 2) {
    group = "";
    version = segments[1] as string;
    rest = segments.slice(2);
  } else if (segments[0] === "apis" && segments.length >= 3) {
    group = segments[1] as string;
    version = segments[2] as string;
    rest = segments.slice(3);
  } else return undefined;
  if (rest.length === 0) return undefined;
  // `namespaces/<ns>/<resource>…` is a namespaced path; `namespaces` and `namespaces/<ns>` alone name Namespace objects.
  if (rest[0] === "namespaces" && rest.length >= 3) {
    const [, namespace, resource, name, subresource] = rest as [string, string, string, string?, string?];
    if (rest.length > 5) return undefined;
    return {
      group,
      version,
      resource,
      namespace,
      ...(name !== undefined ? { name } : {}),
      ...(subresource !== undefined ? { subresource } : {}),
    };
  }
  if (rest.length > 3) return undefined;
  const [resource, name, subresource] = rest as [string, string?, string?];
  return {
    group,
    version,
    resource,
    ...(name !== undefined ? { name } : {}),
    ...(subresource !== undefined ? { subresource } : {}),
  };
}

/**
 * The tenant rule for an apiCall of a namespaced Policy (`policyNamespace` non-empty): GET only, no
 * service call, and a path that parses and names a resource inside the policy's namespace. A
 * ClusterPolicy (`policyNamespace` "") only needs a path that parses.
 */
export function checkApiCall(
  call: { readonly urlPath?: string; readonly serviceUrl?: string; readonly method: string },
  policyNamespace: string,
): Result<CheckedPath> {
  const tenant = policyNamespace !== "";
  if (call.serviceUrl !== undefined) {
    return tenant
      ? err(
          "refused",
          `a namespaced Policy (namespace "${policyNamespace}") may not call a service (apiCall.service); only paths in its own namespace`,
        )
      : err("unsupported", "apiCall.service calls are not supported by Bylaw's live context yet");
  }
  if (call.urlPath === undefined) return err("api-path", "apiCall has neither urlPath nor service");
  if (tenant && call.method !== "GET")
    return err(
      "refused",
      `a namespaced Policy (namespace "${policyNamespace}") may only GET through apiCall (method ${call.method})`,
    );
  const parsed = parseApiPath(call.urlPath);
  if (!tenant) return parsed;
  if (!parsed.ok) return err("refused", parsed.error.message);
  const ns = parsed.value.resource?.namespace;
  if (ns === undefined)
    return err(
      "refused",
      `a namespaced Policy (namespace "${policyNamespace}") may only read paths in its own namespace (/api/v1/namespaces/${policyNamespace}/… or /apis/<group>/<version>/namespaces/${policyNamespace}/…); ${JSON.stringify(call.urlPath)} is not namespaced`,
    );
  if (ns !== policyNamespace)
    return err(
      "refused",
      `a namespaced Policy (namespace "${policyNamespace}") may not read namespace "${ns}" (apiCall urlPath ${JSON.stringify(call.urlPath)})`,
    );
  return parsed;
}

/** The tenant rule for a configMap entry: a namespaced Policy reads only its own namespace (Kyverno's text). */
export function checkConfigMapNamespace(entryNamespace: string, policyNamespace: string): Result<string> {
  const ns = entryNamespace !== "" ? entryNamespace : policyNamespace !== "" ? policyNamespace : "default";
  if (policyNamespace !== "" && ns !== policyNamespace)
    return err("refused", `configMap namespace "${ns}" is different from policy namespace "${policyNamespace}"`);
  return ok(ns);
}
