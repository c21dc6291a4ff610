/**
 * gunzip with a bound on what comes out, for data a tenant controls (CEL `gzip.decompress` over a
 * resource's field, a signed manifest's message annotation). The input is fed to fflate's
 * streaming inflater a few KiB at a time, so a "bomb" is stopped after at most about a thousand
 * times that chunk, never after allocating what its trailer claims or what it inflates to.
 */
// The browser build: the Node one loads worker_threads for its asynchronous API.
import { Gunzip } from "fflate/browser";

const CHUNK = 4096;

class TooLarge extends Error {}

/** The inflated bytes, or a message saying why not (not gzip, corrupt, or more than `maxBytes`). */
export function gunzipCapped(data: Uint8Array, maxBytes: number): Uint8Array | string {
  if (data.length < 10) return "unexpected EOF";
  if (data[0] !== 0x1f || data[1] !== 0x8b) return "gzip: invalid header";
  const parts: Uint8Array[] = [];
  let total = 0;
  let done = false;
  const stream = new Gunzip((chunk, final) => {
    total += chunk.length;
    if (total > maxBytes) throw new TooLarge();
    parts.push(chunk);
    if (final) done = true;
  });
  try {
    for (let at = 0; at < data.length; at += CHUNK)
      stream.push(data.subarray(at, Math.min(at + CHUNK, data.length)), at + CHUNK >= data.length);
  } catch (e) {
    if (e instanceof TooLarge)
      return `the gzipped data is more than ${maxBytes} bytes uncompressed, more than Bylaw reads`;
    const message = e instanceof Error ? e.message : String(e);
    return message === "unexpected EOF" ? message : `gzip: ${message}`;
  }
  if (!done) return "unexpected EOF";
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
