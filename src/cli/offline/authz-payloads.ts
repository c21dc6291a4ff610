/**
 * `bylaw apply --http-payload FILE` and `--envoy-payload FILE` (Kyverno's flags), a test file's
 * `httpPayloads` and `envoyPayloads`: requests for ValidatingPolicies with `spec.evaluation.mode`
 * HTTP or Envoy, one JSON document per file, read as Kyverno's CLI reads them
 * (processor.LoadHTTPRequests: Go's encoding/json into kyverno-authz's CheckRequest, engine
 * decodeHttpRequest; processor.LoadEnvoyRequests: protojson into Envoy's CheckRequest, engine
 * decodeEnvoyRequest). A file that cannot be read or decoded is an error naming it, in Kyverno's
 * words ("failed to parse HTTP payload from FILE: …", "failed to parse envoy payload from FILE: …").
 */
import { readFile } from "node:fs/promises";
import { type AuthzRequest, decodeEnvoyRequest, decodeHttpRequest, type JsonValue } from "../../engine/index.js";

export type AuthzMode = AuthzRequest["mode"];

interface LoadedAuthzPayloads {
  readonly requests: AuthzRequest[];
  /** The file each request was read from, as given. */
  readonly files: string[];
  readonly errors: string[];
}

/** How Kyverno's CLI names each mode's payloads in its errors. */
const NAMED = { HTTP: "HTTP", Envoy: "envoy" } as const;

export async function loadAuthzPayloads(mode: AuthzMode, paths: readonly string[]): Promise<LoadedAuthzPayloads> {
  const out: LoadedAuthzPayloads = { requests: [], files: [], errors: [] };
  const named = NAMED[mode];
  for (const path of paths) {
    const failed = (why: string) => out.errors.push(`failed to parse ${named} payload from ${path}: ${why}`);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      failed(`failed to read ${named} payload file ${path}: ${(e as Error).message}`);
      continue;
    }
    const decoded = mode === "HTTP" ? decodeHttp(text) : decodeEnvoy(text);
    if (!decoded.ok) failed(decoded.error);
    else {
      out.requests.push(decoded.value);
      out.files.push(path);
    }
  }
  return out;
}

type Decoded = { ok: true; value: AuthzRequest } | { ok: false; error: string };

function decodeHttp(text: string): Decoded {
  let doc: JsonValue;
  try {
    doc = JSON.parse(text) as JsonValue;
  } catch (e) {
    return { ok: false, error: `not a JSON document: ${(e as Error).message}` };
  }
  const decoded = decodeHttpRequest(doc);
  return decoded.ok ? { ok: true, value: { mode: "HTTP", request: decoded.value } } : decoded;
}

function decodeEnvoy(text: string): Decoded {
  const decoded = decodeEnvoyRequest(text);
  return decoded.ok ? { ok: true, value: { mode: "Envoy", request: decoded.value } } : decoded;
}
