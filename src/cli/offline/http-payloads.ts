/**
 * `bylaw apply --http-payload FILE` (Kyverno's flag) and a test file's `httpPayloads`: HTTP
 * requests for ValidatingPolicies with `spec.evaluation.mode: HTTP`, one JSON document per file,
 * read as Kyverno's CLI reads them (processor.LoadHTTPRequests: the file as JSON into
 * kyverno-authz's CheckRequest; engine decodeHttpRequest). A file that cannot be read or decoded
 * is an error naming it, in Kyverno's words ("failed to parse HTTP payload from FILE: …").
 */
import { readFile } from "node:fs/promises";
import { decodeHttpRequest, type HttpCheckRequest, type JsonValue } from "../../engine/index.js";

interface LoadedHttpPayloads {
  readonly requests: HttpCheckRequest[];
  /** The file each request was read from, as given. */
  readonly files: string[];
  readonly errors: string[];
}

export async function loadHttpPayloads(paths: readonly string[]): Promise<LoadedHttpPayloads> {
  const out: LoadedHttpPayloads = { requests: [], files: [], errors: [] };
  for (const path of paths) {
    const failed = (why: string) => out.errors.push(`failed to parse HTTP payload from ${path}: ${why}`);
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      failed(`failed to read HTTP payload file ${path}: ${(e as Error).message}`);
      continue;
    }
    let doc: JsonValue;
    try {
      doc = JSON.parse(text) as JsonValue;
    } catch (e) {
      failed(`not a JSON document: ${(e as Error).message}`);
      continue;
    }
    const decoded = decodeHttpRequest(doc);
    if (!decoded.ok) failed(decoded.error);
    else {
      out.requests.push(decoded.value);
      out.files.push(path);
    }
  }
  return out;
}
