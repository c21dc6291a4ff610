/**
 * Kubernetes' IP and CIDR libraries (k8s.io/apiserver/pkg/cel/library/ip.go, cidr.go): `ip`,
 * `isIP`, `ip.isCanonical`, `cidr`, `isCIDR` and their methods. As Kubernetes, IPv4-mapped IPv6
 * addresses and zones are refused.
 */
import { CelFunctionError, equality, namespace, type CelLibrary } from "../library.js";
import { formatIp, isV4Mapped, maskIp, parseIp, sameIp, type IpAddress } from "./ip-address.js";

const IP = "net.IP";
const CIDR = "net.CIDR";

class CelIp {
  constructor(readonly addr: IpAddress) {}
  toString(): string {
    return formatIp(this.addr);
  }
}

class CelCidr {
  constructor(
    readonly addr: IpAddress,
    readonly bits: number,
  ) {}
  toString(): string {
    return `${formatIp(this.addr)}/${this.bits}`;
  }
}

function checkedIp(s: string): IpAddress | string {
  const ip = parseIp(s);
  if (typeof ip === "string") return `ParseAddr(${JSON.stringify(s)}): ${ip}`;
  if (ip.zone !== "") return "IP address with zone value is not allowed";
  if (isV4Mapped(ip)) return "IPv4-mapped IPv6 address is not allowed";
  return ip;
}

function toIp(s: string): CelIp {
  const ip = checkedIp(s);
  if (typeof ip === "string")
    throw new CelFunctionError(`IP Address ${JSON.stringify(s)} parse error during conversion from string: ${ip}`);
  return new CelIp(ip);
}

function checkedCidr(s: string): CelCidr | string {
  const slash = s.lastIndexOf("/");
  if (slash < 0) return `netip.ParsePrefix(${JSON.stringify(s)}): no '/'`;
  const ip = checkedIp(s.slice(0, slash));
  if (typeof ip === "string") return ip;
  const bitsText = s.slice(slash + 1);
  const max = ip.bytes.length * 8;
  if (!/^(0|[1-9]\d*)$/.test(bitsText) || Number(bitsText) > max)
    return `netip.ParsePrefix(${JSON.stringify(s)}): bad bits after slash: ${JSON.stringify(bitsText)}`;
  return new CelCidr(ip, Number(bitsText));
}

function toCidr(s: string): CelCidr {
  const c = checkedCidr(s);
  if (typeof c === "string")
    throw new CelFunctionError(`network address parse error during conversion from string: ${c}`);
  return c;
}

function contains(c: CelCidr, ip: IpAddress): boolean {
  return ip.bytes.length === c.addr.bytes.length && sameIp(maskIp(ip, c.bits), maskIp(c.addr, c.bits));
}

function containsCidr(outer: CelCidr, inner: CelCidr): boolean {
  return inner.bits >= outer.bits && contains(outer, inner.addr);
}

const b = (ip: CelIp): readonly number[] => ip.addr.bytes;
const v4 = (ip: CelIp): boolean => b(ip).length === 4;

function isLoopback(ip: CelIp): boolean {
  return v4(ip)
    ? b(ip)[0] === 127
    : b(ip)
        .slice(0, 15)
        .every((x) => x === 0) && b(ip)[15] === 1;
}
function isUnspecified(ip: CelIp): boolean {
  return b(ip).every((x) => x === 0);
}
function isMulticast(ip: CelIp): boolean {
  return v4(ip) ? (b(ip)[0]! & 0xf0) === 0xe0 : b(ip)[0] === 0xff;
}
function isLinkLocalMulticast(ip: CelIp): boolean {
  return v4(ip)
    ? b(ip)[0] === 224 && b(ip)[1] === 0 && b(ip)[2] === 0
    : b(ip)[0] === 0xff && (b(ip)[1]! & 0x0f) === 0x02;
}
function isLinkLocalUnicast(ip: CelIp): boolean {
  return v4(ip) ? b(ip)[0] === 169 && b(ip)[1] === 254 : b(ip)[0] === 0xfe && (b(ip)[1]! & 0xc0) === 0x80;
}
function isGlobalUnicast(ip: CelIp): boolean {
  const broadcast = v4(ip) && b(ip).every((x) => x === 255);
  return !(broadcast || isUnspecified(ip) || isLoopback(ip) || isMulticast(ip) || isLinkLocalUnicast(ip));
}

const ok =
  (f: (s: string) => unknown) =>
  (s: string): boolean => {
    try {
      f(s);
      return true;
    } catch {
      return false;
    }
  };

export function ipLibraries(): CelLibrary[] {
  const ns = namespace("ip", "bylaw.IpNamespace");
  return [
    {
      name: "k8s.IP",
      types: [{ name: IP, ctor: CelIp }, ...(ns.types ?? [])],
      constants: ns.constants ?? [],
      operators: equality<CelIp>(IP, (a, b) => sameIp(a.addr, b.addr)),
      functions: [
        { signature: `ip(string): ${IP}`, handler: toIp },
        { signature: "isIP(string): bool", handler: ok(toIp) },
        {
          signature: "bylaw.IpNamespace.isCanonical(string): bool",
          handler: (_: unknown, s: string) => toIp(s).toString() === s,
        },
        { signature: `string(${IP}): string`, handler: (ip: CelIp) => ip.toString() },
        { signature: `${IP}.family(): int`, handler: (ip: CelIp) => (v4(ip) ? 4n : 6n) },
        { signature: `${IP}.isUnspecified(): bool`, handler: isUnspecified },
        { signature: `${IP}.isLoopback(): bool`, handler: isLoopback },
        { signature: `${IP}.isLinkLocalMulticast(): bool`, handler: isLinkLocalMulticast },
        { signature: `${IP}.isLinkLocalUnicast(): bool`, handler: isLinkLocalUnicast },
        { signature: `${IP}.isGlobalUnicast(): bool`, handler: isGlobalUnicast },
      ],
    },
    {
      name: "k8s.CIDR",
      types: [{ name: CIDR, ctor: CelCidr }],
      operators: equality<CelCidr>(CIDR, (a, b) => a.bits === b.bits && sameIp(a.addr, b.addr)),
      functions: [
        { signature: `cidr(string): ${CIDR}`, handler: toCidr },
        { signature: "isCIDR(string): bool", handler: ok(toCidr) },
        { signature: `string(${CIDR}): string`, handler: (c: CelCidr) => c.toString() },
        { signature: `${CIDR}.containsIP(${IP}): bool`, handler: (c: CelCidr, ip: CelIp) => contains(c, ip.addr) },
        {
          signature: `${CIDR}.containsIP(string): bool`,
          handler: (c: CelCidr, s: string) => contains(c, toIp(s).addr),
        },
        { signature: `${CIDR}.containsCIDR(${CIDR}): bool`, handler: containsCidr },
        {
          signature: `${CIDR}.containsCIDR(string): bool`,
          handler: (c: CelCidr, s: string) => containsCidr(c, toCidr(s)),
        },
        { signature: `${CIDR}.ip(): ${IP}`, handler: (c: CelCidr) => new CelIp(c.addr) },
        {
          signature: `${CIDR}.masked(): ${CIDR}`,
          handler: (c: CelCidr) => new CelCidr(maskIp(c.addr, c.bits), c.bits),
        },
        { signature: `${CIDR}.prefixLength(): int`, handler: (c: CelCidr) => BigInt(c.bits) },
      ],
    },
  ];
}
