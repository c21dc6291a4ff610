/**
 * Kyverno's CEL `gzip.decompress(bytes): string` (kyverno/sdk libs/gzip), on fflate. Not provided:
 * `gzip.compress`, whose bytes are those of Go's compress/flate, which another deflater does not
 * reproduce; using it is a compile error naming it rather than different bytes.
 */
import { gunzipCapped } from "../../compress/gunzip-capped.js";
import { utf8DecodeLossy } from "../../jmespath/functions/kyverno/go-text.js";
import { CelFunctionError, namespace, type CelLibrary } from "../library.js";

/** What one decompress may produce: a resource field a tenant wrote must not take the process's memory. */
const MAX_DECOMPRESSED_BYTES = 8 * 1024 * 1024;

function decompress(data: Uint8Array): string {
  const out = gunzipCapped(data, MAX_DECOMPRESSED_BYTES);
  if (typeof out === "string") throw new CelFunctionError(out);
  return utf8DecodeLossy(out);
}

export function gzipLibrary(): CelLibrary {
  const NS = "kyverno.GzipNamespace";
  return {
    name: "kyverno.gzip",
    ...namespace("gzip", NS),
    functions: [
      { signature: `${NS}.decompress(bytes): string`, handler: (_: unknown, b: Uint8Array) => decompress(b) },
    ],
  };
}
