/** Standard base64 (RFC 4648, padded) with the exact behaviour of Go's `base64.StdEncoding`. */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Map([...ALPHABET].map((c, i) => [c.charCodeAt(0), i]));
const PAD = 0x3d; // '='
const CR = 0x0d;
const LF = 0x0a;

export function base64Encode(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i] ?? 0;
    const b1 = bytes[i + 1] ?? 0;
    const b2 = bytes[i + 2] ?? 0;
    const n = (b0 << 16) | (b1 << 8) | b2;
    const left = bytes.length - i;
    out += ALPHABET[(n >> 18) & 63];
    out += ALPHABET[(n >> 12) & 63];
    out += left > 1 ? ALPHABET[(n >> 6) & 63] : "=";
    out += left > 2 ? ALPHABET[n & 63] : "=";
  }
  return out;
}

/**
 * Decodes like Go's `StdEncoding.DecodeString`: CR and LF are skipped anywhere, padding is
 * required, trailing garbage is an error. Errors carry Go's text and byte offset.
 */
export function base64Decode(src: Uint8Array): Uint8Array | string {
  const out: number[] = [];
  let si = 0;
  const corrupt = (at: number): string => `illegal base64 data at input byte ${at}`;
  while (si < src.length) {
    const quantum: number[] = [];
    let dlen = 4;
    let j = 0;
    for (; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out);
        return corrupt(si - j);
      }
      const ch = src[si] ?? 0;
      si++;
      const v = DECODE.get(ch);
      if (v !== undefined) {
        quantum[j] = v;
        continue;
      }
      if (ch === LF || ch === CR) {
        j--;
        continue;
      }
      if (ch !== PAD) return corrupt(si - 1);
      // Padding: only after two or three symbols.
      if (j < 2) return corrupt(si - 1);
      if (j === 2) {
        while (si < src.length && (src[si] === LF || src[si] === CR)) si++;
        if (si === src.length) return corrupt(src.length);
        if (src[si] !== PAD) return corrupt(si - 1);
        si++;
      }
      while (si < src.length && (src[si] === LF || src[si] === CR)) si++;
      if (si < src.length) return corrupt(si);
      dlen = j;
      break;
    }
    const val = ((quantum[0] ?? 0) << 18) | ((quantum[1] ?? 0) << 12) | ((quantum[2] ?? 0) << 6) | (quantum[3] ?? 0);
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...bytes.slice(0, dlen - 1));
  }
  return Uint8Array.from(out);
}
