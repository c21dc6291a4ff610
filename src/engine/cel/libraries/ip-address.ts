/**
 * IP addresses as Go's net/netip parses and prints them (no Node APIs): IPv4 dotted quads without
 * leading zeros, IPv6 with `::` and an optional IPv4 tail, printed in RFC 5952 canonical form.
 */

export interface IpAddress {
  /** 4 bytes for IPv4, 16 for IPv6. */
  readonly bytes: readonly number[];
  readonly zone: string;
}

function parseV4(s: string): number[] | string {
  const parts = s.split(".");
  if (parts.length !== 4) return "IPv4 address too short";
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return `unexpected character`;
    if (p.length > 1 && p.startsWith("0")) return "IPv4 field has octet with leading zero";
    const n = Number(p);
    if (n > 255) return "IPv4 field has value >255";
    out.push(n);
  }
  return out;
}

function parseV6(s: string): number[] | string {
  const halves = s.split("::");
  if (halves.length > 2) return "multiple :: in address";
  const groups = (text: string): number[] | string => {
    if (text === "") return [];
    const out: number[] = [];
    const fields = text.split(":");
    for (const [i, f] of fields.entries()) {
      if (i === fields.length - 1 && f.includes(".")) {
        const v4 = parseV4(f);
        if (typeof v4 === "string") return v4;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
        continue;
      }
      if (!/^[0-9A-Fa-f]{1,4}$/.test(f))
        return f === ""
          ? "colon must be followed by more characters"
          : "each colon-separated field must have at most 4 hex digits";
      out.push(parseInt(f, 16));
    }
    return out;
  };
  const head = groups(halves[0] ?? "");
  if (typeof head === "string") return head;
  const tail = halves.length === 2 ? groups(halves[1] ?? "") : [];
  if (typeof tail === "string") return tail;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1)
    return halves.length === 1 ? "address string too short" : "address string too long";
  const words = [...head, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

/** Parses like netip.ParseAddr; a string is the reason it failed. */
export function parseIp(s: string): IpAddress | string {
  if (s === "") return "unable to parse IP";
  if (s.includes(":")) {
    const pct = s.indexOf("%");
    const zone = pct < 0 ? "" : s.slice(pct + 1);
    if (pct >= 0 && zone === "") return "zone must be a non-empty string";
    const bytes = parseV6(pct < 0 ? s : s.slice(0, pct));
    return typeof bytes === "string" ? bytes : { bytes, zone };
  }
  const bytes = parseV4(s);
  return typeof bytes === "string" ? bytes : { bytes, zone: "" };
}

export function isV4Mapped(ip: IpAddress): boolean {
  return (
    ip.bytes.length === 16 &&
    ip.bytes.slice(0, 10).every((b) => b === 0) &&
    ip.bytes[10] === 0xff &&
    ip.bytes[11] === 0xff
  );
}

/** netip.Addr.String(): dotted quad, or RFC 5952 (lowercase, longest zero run of 2+ as `::`). */
export function formatIp(ip: IpAddress): string {
  if (ip.bytes.length === 4) return ip.bytes.join(".");
  if (isV4Mapped(ip)) return `::ffff:${ip.bytes.slice(12).join(".")}`;
  const words = Array.from({ length: 8 }, (_, i) => (ip.bytes[2 * i]! << 8) | ip.bytes[2 * i + 1]!);
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  const text =
    bestStart < 0 ? hex.join(":") : `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
  return ip.zone === "" ? text : `${text}%${ip.zone}`;
}

/** The first `bits` bits of the address kept, the rest zero. */
export function maskIp(ip: IpAddress, bits: number): IpAddress {
  const bytes = ip.bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    return keep === 0 ? 0 : b & ((0xff << (8 - keep)) & 0xff);
  });
  return { bytes, zone: "" };
}

export function sameIp(a: IpAddress, b: IpAddress): boolean {
  return a.bytes.length === b.bytes.length && a.bytes.every((x, i) => x === b.bytes[i]) && a.zone === b.zone;
}
