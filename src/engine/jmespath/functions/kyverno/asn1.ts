/** A minimal DER reader: tag-length-value elements, OIDs, integers, strings and times. */

export class Asn1Error extends Error {}

export interface Element {
  /** Tag class: 0 universal, 1 application, 2 context-specific, 3 private. */
  readonly cls: number;
  readonly constructed: boolean;
  readonly tag: number;
  /** The whole element, header included. */
  readonly full: Uint8Array;
  /** The contents, header excluded. */
  readonly body: Uint8Array;
}

export const TAG = {
  BOOLEAN: 1,
  INTEGER: 2,
  BIT_STRING: 3,
  OCTET_STRING: 4,
  NULL: 5,
  OID: 6,
  ENUMERATED: 10,
  UTF8_STRING: 12,
  SEQUENCE: 16,
  SET: 17,
  NUMERIC_STRING: 18,
  PRINTABLE_STRING: 19,
  T61_STRING: 20,
  IA5_STRING: 22,
  UTC_TIME: 23,
  GENERALIZED_TIME: 24,
  UNIVERSAL_STRING: 28,
  BMP_STRING: 30,
} as const;

/** Reads one element at `offset`; returns it and the offset after it. */
function readElement(data: Uint8Array, offset: number): [Element, number] {
  let i = offset;
  const first = data[i++];
  if (first === undefined) throw new Asn1Error("truncated tag");
  let tag = first & 0x1f;
  if (tag === 0x1f) {
    tag = 0;
    for (;;) {
      const b = data[i++];
      if (b === undefined) throw new Asn1Error("truncated tag");
      tag = tag * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
  }
  const lenByte = data[i++];
  if (lenByte === undefined) throw new Asn1Error("truncated length");
  let length = lenByte;
  if (lenByte & 0x80) {
    const n = lenByte & 0x7f;
    if (n === 0 || n > 4) throw new Asn1Error("unsupported length");
    length = 0;
    for (let k = 0; k < n; k++) {
      const b = data[i++];
      if (b === undefined) throw new Asn1Error("truncated length");
      length = length * 256 + b;
    }
  }
  const end = i + length;
  if (end > data.length) throw new Asn1Error("data truncated");
  return [
    {
      cls: first >> 6,
      constructed: (first & 0x20) !== 0,
      tag,
      full: data.subarray(offset, end),
      body: data.subarray(i, end),
    },
    end,
  ];
}

/** The single element that makes up `data` (trailing bytes are an error). */
export function parseElement(data: Uint8Array): Element {
  const [el, end] = readElement(data, 0);
  if (end !== data.length) throw new Asn1Error("trailing data");
  return el;
}

/** The children of a constructed element. */
export function children(el: Element): Element[] {
  const out: Element[] = [];
  let i = 0;
  while (i < el.body.length) {
    const [child, next] = readElement(el.body, i);
    out.push(child);
    i = next;
  }
  return out;
}

/** An element a tag test has accepted (the brand keeps the "no" branch typed as Element). */
type Matched = Element & { readonly __matched: true };

export function isUniversal(el: Element | undefined, tag: number): el is Matched {
  return el !== undefined && el.cls === 0 && el.tag === tag;
}

export function isContext(el: Element | undefined, tag: number): el is Matched {
  return el !== undefined && el.cls === 2 && el.tag === tag;
}

export function expect(el: Element | undefined, tag: number, what: string): Element {
  if (!isUniversal(el, tag)) throw new Asn1Error(`expected ${what}`);
  return el;
}

/** Object identifier arcs, e.g. [2, 5, 29, 15]. */
export function oidArcs(el: Element): number[] {
  const b = el.body;
  if (b.length === 0) throw new Asn1Error("empty OID");
  const arcs: number[] = [];
  let v = 0;
  for (const byte of b) {
    v = v * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      if (arcs.length === 0) {
        const first = v < 80 ? Math.floor(v / 40) : 2;
        arcs.push(first, v - first * 40);
      } else arcs.push(v);
      v = 0;
    }
  }
  return arcs;
}

export function oidString(arcs: readonly number[]): string {
  return arcs.join(".");
}

/** Two's-complement big-endian integer. */
export function integer(el: Element): bigint {
  const b = el.body;
  if (b.length === 0) throw new Asn1Error("empty integer");
  let v = 0n;
  for (const byte of b) v = (v << 8n) | BigInt(byte);
  if ((b[0] ?? 0) & 0x80) v -= 1n << BigInt(8 * b.length);
  return v;
}

export function boolean(el: Element): boolean {
  return (el.body[0] ?? 0) !== 0;
}

/** Bit string contents (the unused-bits byte removed). */
export function bitString(el: Element): { bytes: Uint8Array; unused: number } {
  return { bytes: el.body.subarray(1), unused: el.body[0] ?? 0 };
}

function latin1(b: Uint8Array): string {
  let s = "";
  for (const byte of b) s += String.fromCharCode(byte);
  return s;
}

/** Decodes the string types Go's asn1 package reads into a Go string; undefined otherwise. */
export function asn1String(el: Element, decodeUtf8: (b: Uint8Array) => string): string | undefined {
  if (el.cls !== 0) return undefined;
  switch (el.tag) {
    case TAG.UTF8_STRING:
      return decodeUtf8(el.body);
    case TAG.PRINTABLE_STRING:
    case TAG.IA5_STRING:
    case TAG.NUMERIC_STRING:
      return latin1(el.body);
    case TAG.T61_STRING:
      return latin1(el.body);
    case TAG.BMP_STRING: {
      let s = "";
      for (let i = 0; i + 1 < el.body.length; i += 2)
        s += String.fromCharCode(((el.body[i] ?? 0) << 8) | (el.body[i + 1] ?? 0));
      return s;
    }
    default:
      return undefined;
  }
}

/** UTCTime or GeneralizedTime as an RFC 3339 UTC timestamp string (Go's JSON for time.Time). */
export function asn1Time(el: Element): string {
  const s = latin1(el.body);
  let m: RegExpExecArray | null;
  if (isUniversal(el, TAG.UTC_TIME)) {
    m = /^([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})Z$/.exec(s);
    if (!m) throw new Asn1Error("invalid UTCTime");
    const yy = Number(m[1]);
    const year = yy >= 50 ? 1900 + yy : 2000 + yy;
    return `${year}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`;
  }
  if (isUniversal(el, TAG.GENERALIZED_TIME)) {
    m = /^([0-9]{4})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})(\.[0-9]*[1-9])?Z$/.exec(s);
    if (!m) throw new Asn1Error("invalid GeneralizedTime");
    return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7] ?? ""}Z`;
  }
  throw new Asn1Error("expected a time");
}
