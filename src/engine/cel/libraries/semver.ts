/**
 * Kubernetes' semver library, version 1 (k8s.io/apiserver/pkg/cel/library/semverlib.go):
 * `semver(s)`, `semver(s, normalize)`, `isSemver` and the Semver methods. Strict semver 2.0.0;
 * `normalize` drops a leading `v`, fills missing minor/patch with 0 and leading zeros.
 */
import { CelFunctionError, equality, type CelLibrary } from "../library.js";

const TYPE = "kubernetes.Semver";
const NUM = "(0|[1-9]\\d*)";
const IDENT = "[0-9A-Za-z-]+";
const STRICT = new RegExp(
  `^${NUM}\\.${NUM}\\.${NUM}(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+(${IDENT}(?:\\.${IDENT})*))?$`,
);

class CelSemver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly string[],
    readonly text: string,
  ) {}
  toString(): string {
    return this.text;
  }
}

function normalized(s: string): string {
  const v = s.startsWith("v") ? s.slice(1) : s;
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$/s.exec(v);
  if (m === null) return v;
  const n = (x: string | undefined): string => String(BigInt(x ?? "0"));
  return `${n(m[1])}.${n(m[2])}.${n(m[3])}${m[4] ?? ""}`;
}

function parse(s: string, normalize: boolean): CelSemver {
  const text = normalize ? normalized(s) : s;
  const m = STRICT.exec(text);
  const pre = m?.[4] === undefined ? [] : m[4].split(".");
  if (m === null || pre.some((p) => /^\d+$/.test(p) && p.length > 1 && p.startsWith("0"))) {
    throw new CelFunctionError(`could not parse semver: ${JSON.stringify(s)} is not a valid semantic version`);
  }
  return new CelSemver(BigInt(m[1] ?? "0"), BigInt(m[2] ?? "0"), BigInt(m[3] ?? "0"), pre, text);
}

function comparePre(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length === 0 ? 0 : a.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? "";
    const y = b[i] ?? "";
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) {
      const d = BigInt(x) - BigInt(y);
      if (d !== 0n) return d < 0n ? -1 : 1;
    } else if (xn !== yn) return xn ? -1 : 1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return Math.sign(a.length - b.length);
}

function compareSemver(a: CelSemver, b: CelSemver): number {
  for (const [x, y] of [
    [a.major, b.major],
    [a.minor, b.minor],
    [a.patch, b.patch],
  ] as const)
    if (x !== y) return x < y ? -1 : 1;
  return comparePre(a.pre, b.pre);
}

const valid = (s: string, normalize: boolean): boolean => {
  try {
    parse(s, normalize);
    return true;
  } catch {
    return false;
  }
};

export function semverLibrary(): CelLibrary {
  return {
    name: "k8s.Semver(v1)",
    types: [{ name: TYPE, ctor: CelSemver }],
    operators: equality<CelSemver>(TYPE, (a, b) => compareSemver(a, b) === 0),
    functions: [
      { signature: `semver(string): ${TYPE}`, handler: (s: string) => parse(s, false) },
      { signature: `semver(string, bool): ${TYPE}`, handler: (s: string, n: boolean) => parse(s, n) },
      { signature: "isSemver(string): bool", handler: (s: string) => valid(s, false) },
      { signature: "isSemver(string, bool): bool", handler: (s: string, n: boolean) => valid(s, n) },
      { signature: `${TYPE}.major(): int`, handler: (v: CelSemver) => v.major },
      { signature: `${TYPE}.minor(): int`, handler: (v: CelSemver) => v.minor },
      { signature: `${TYPE}.patch(): int`, handler: (v: CelSemver) => v.patch },
      {
        signature: `${TYPE}.isLessThan(${TYPE}): bool`,
        handler: (a: CelSemver, b: CelSemver) => compareSemver(a, b) < 0,
      },
      {
        signature: `${TYPE}.isGreaterThan(${TYPE}): bool`,
        handler: (a: CelSemver, b: CelSemver) => compareSemver(a, b) > 0,
      },
      {
        signature: `${TYPE}.compareTo(${TYPE}): int`,
        handler: (a: CelSemver, b: CelSemver) => BigInt(compareSemver(a, b)),
      },
    ],
  };
}
