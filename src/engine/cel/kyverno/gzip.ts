/**
 * Kyverno's CEL `gzip.decompress(bytes): string` (kyverno/sdk libs/gzip), on fflate. Not provided:
 * `gzip.compress`, whose bytes are those of Go's compress/flate, which another deflater does not
 * reproduce; using it is a compile error naming it rather than different bytes.
 */
// The browser build: the Node one loads worker_threads for its asynchronous API.
import { gunzipSync } from "fflate/browser";
import { utf8DecodeLossy } from "../../jmespath/functions/kyverno/go-text.js";
import { CelFunctionError, namespace, type CelLibrary } from "../library.js";

function decompress(data: Uint8Array): string {
  if (data.length < 10 || data[0] !== 0x1f || data[1] !== 0x8b) throw new CelFunctionError(data.length < 10 ? "unexpected EOF" : "gzip: invalid header");
  try {
    return utf8DecodeLossy(gunzipSync(data));
  } catch (e) {
    throw new CelFunctionError(`gzip: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function gzipLibrary(): CelLibrary {
  const NS = "kyverno.GzipNamespace";
  return { name: "kyverno.gzip", ...namespace("gzip", NS), functions: [{ signature: `${NS}.decompress(bytes): string`, handler: (_: unknown, b: Uint8Array) => decompress(b) }] };
}
