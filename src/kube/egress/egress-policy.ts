/**
 * Which addresses a policy-controlled outbound call may reach (tenant-isolation.md rule 6). Refused
 * by default: loopback, link-local (which holds the cloud metadata address 169.254.169.254),
 * unspecified, multicast and broadcast addresses, and the metadata addresses outside those ranges
 * (fd00:ec2::254, Alibaba's 100.100.100.200). IPv6 spellings that carry an IPv4 address (mapped
 * ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16) are checked as that
 * IPv4 address too. The operator may allow CIDRs (`--egress-allow`), which win over the defaults.
 * Private ranges (10/8, 172.16/12, 192.168/16, fc00::/7) stay reachable: in-cluster Services live there.
 */
import { BlockList, isIP } from "node:net";
import { err, ok, type Result } from "../../engine/index.js";

/** Ranges refused unless allowed, with the reason named in the refusal. */
const REFUSED: readonly (readonly [string, number, "ipv4" | "ipv6", string])[] = [
  ["0.0.0.0", 8, "ipv4", "unspecified"],
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["169.254.0.0", 16, "ipv4", "link-local (cloud metadata)"],
  ["100.100.100.200", 32, "ipv4", "cloud metadata"],
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved or broadcast"],
  ["::", 128, "ipv6", "unspecified"],
  ["::1", 128, "ipv6", "loopback"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["fd00:ec2::254", 128, "ipv6", "cloud metadata"],
  ["ff00::", 8, "ipv6", "multicast"],
];

/** Each refused range as a BlockList, built once. */
const REFUSED_LISTS = REFUSED.map(([net, bits, type, why]) => {
  const list = new BlockList();
  list.addSubnet(net, bits, type);
  return { list, type, label: `${why} (${net}/${bits})` };
});

/** Host names refused whatever they resolve to (compared lower-case, without a trailing dot). */
export const REFUSED_NAMES: ReadonlySet<string> = new Set([
  "metadata.google.internal",
  "metadata",
  "metadata.azure.internal",
  "instance-data",
  "instance-data.ec2.internal",
]);

export class EgressPolicy {
  private readonly allowed = new BlockList();
  private readonly allowList: readonly string[];

  /** `allow`: CIDRs (`127.0.0.0/8`, `::1/128`) or single addresses the operator allows. */
  private constructor(allow: readonly string[]) {
    this.allowList = allow;
  }

  static create(allow: readonly string[] = []): Result<EgressPolicy> {
    const policy = new EgressPolicy(allow);
    for (const cidr of allow) {
      const [addr = "", bits] = cidr.split("/");
      const type = isIP(addr);
      const prefix = bits === undefined ? (type === 6 ? 128 : 32) : Number(bits);
      if (type === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (type === 6 ? 128 : 32)) {
        return err("egress", `--egress-allow ${JSON.stringify(cidr)} is not a CIDR (like 127.0.0.0/8 or ::1/128)`);
      }
      policy.allowed.addSubnet(addr, prefix, type === 6 ? "ipv6" : "ipv4");
    }
    return ok(policy);
  }

  /** What the operator allowed, for logs. */
  get allowing(): readonly string[] {
    return this.allowList;
  }

  /** Whether a connection to this IP address may be opened; the refusal names the range, never more. */
  checkAddress(address: string): Result<true> {
    const type = isIP(address);
    if (type === 0) return err("refused", `${JSON.stringify(address)} is not an IP address`);
    const candidates: [string, "ipv4" | "ipv6"][] = [[address, type === 6 ? "ipv6" : "ipv4"]];
    if (type === 6) {
      const v4 = embeddedIpv4(address);
      if (v4 !== undefined) candidates.push([v4, "ipv4"]);
    }
    for (const [a, t] of candidates) {
      if (this.allowed.check(a, t)) continue;
      for (const r of REFUSED_LISTS) {
        if (r.type === "ipv6" && t === "ipv4") continue;
        if (r.list.check(a, t))
          return err(
            "refused",
            `the address is ${r.label}, refused for policy-controlled calls unless the operator allows it (--egress-allow)`,
          );
      }
    }
    return ok(true);
  }
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(address: string): string | undefined {
  const g = expandIpv6(address);
  if (g === undefined) return undefined;
  const quad = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0) && !(g[5] === 0 && g[6] === 0))
    return quad(g[6] as number, g[7] as number);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return quad(g[6] as number, g[7] as number);
  if (g[0] === 0x2002) return quad(g[1] as number, g[2] as number);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (zone removed), or undefined if it is not one. */
function expandIpv6(address: string): number[] | undefined {
  let a = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  if (isIP(a) !== 6) return undefined;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(a);
  if (dotted !== null) {
    const [b0, b1, b2, b3] = dotted.slice(1).map(Number) as [number, number, number, number];
    a = a.slice(0, dotted.index) + `${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const [head = "", tail] = a.split("::");
  const h = head === "" ? [] : head.split(":");
  const t = tail === undefined || tail === "" ? [] : tail.split(":");
  const fill = tail === undefined ? 0 : 8 - h.length - t.length;
  const groups = [...h, ...new Array<string>(fill).fill("0"), ...t].map((x) => parseInt(x, 16));
  return groups.length === 8 && groups.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? groups : undefined;
}
