/**
 * Semantic versions as Kyverno reads them (github.com/blang/semver/v4, strict `Parse`):
 * `MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD]`, no leading `v`, no leading zeros in numbers,
 * identifiers made of `[0-9A-Za-z-]`. Build metadata is kept but never affects ordering.
 */

interface SemverPrerelease {
  /** A numeric identifier (`rc.1` → 1) or an alphanumeric one (`rc`). */
  readonly value: bigint | string;
}

export interface Semver {
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly prerelease: readonly SemverPrerelease[];
  readonly build: readonly string[];
}

const UINT64_MAX = (1n << 64n) - 1n;
const NUMERIC = /^[0-9]*$/;
const ALPHANUMERIC = /^[0-9A-Za-z-]*$/;

/** Parses a version, or returns a reason (blang/semver's wording) when it is not one. */
export function parseSemverOrError(s: string): Semver | string {
  if (s === "") return "Version string empty";
  const parts = splitN(s, ".", 3);
  if (parts.length !== 3) return "No Major.Minor.Patch elements found";
  const [majorText = "", minorText = "", rest = ""] = parts;
  const major = parseNumber(majorText, "major");
  if (typeof major === "string") return major;
  const minor = parseNumber(minorText, "minor");
  if (typeof minor === "string") return minor;

  let patchText = rest;
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patchText.indexOf("+");
  if (plus !== -1) {
    build = patchText.slice(plus + 1).split(".");
    patchText = patchText.slice(0, plus);
  }
  const dash = patchText.indexOf("-");
  if (dash !== -1) {
    pre = patchText.slice(dash + 1).split(".");
    patchText = patchText.slice(0, dash);
  }
  const patch = parseNumber(patchText, "patch");
  if (typeof patch === "string") return patch;

  const prerelease: SemverPrerelease[] = [];
  for (const p of pre) {
    const parsed = parsePrerelease(p);
    if (typeof parsed === "string") return parsed;
    prerelease.push(parsed);
  }
  for (const b of build) {
    if (b === "") return "Build meta data is empty";
    if (!ALPHANUMERIC.test(b)) return `Invalid character(s) found in build meta data ${JSON.stringify(b)}`;
  }
  return { major, minor, patch, prerelease, build };
}

/** Parses a version; `undefined` when it is not a strict semantic version. */
export function parseSemver(s: string): Semver | undefined {
  const v = parseSemverOrError(s);
  return typeof v === "string" ? undefined : v;
}

/** Orders two versions by semver precedence: -1, 0 or 1. Build metadata is ignored. */
export function compareSemver(a: Semver, b: Semver): -1 | 0 | 1 {
  const core = cmp(a.major, b.major) || cmp(a.minor, b.minor) || cmp(a.patch, b.patch);
  if (core !== 0) return core;
  const ap = a.prerelease;
  const bp = b.prerelease;
  if (ap.length === 0 && bp.length === 0) return 0;
  if (ap.length === 0) return 1;
  if (bp.length === 0) return -1;
  const n = Math.min(ap.length, bp.length);
  for (let i = 0; i < n; i++) {
    const c = comparePrerelease(ap[i] as SemverPrerelease, bp[i] as SemverPrerelease);
    if (c !== 0) return c;
  }
  return cmp(ap.length, bp.length);
}

/** Prints a version back in canonical form. */
export function formatSemver(v: Semver): string {
  let out = `${v.major}.${v.minor}.${v.patch}`;
  if (v.prerelease.length > 0) out += `-${v.prerelease.map((p) => String(p.value)).join(".")}`;
  if (v.build.length > 0) out += `+${v.build.join(".")}`;
  return out;
}

function comparePrerelease(a: SemverPrerelease, b: SemverPrerelease): -1 | 0 | 1 {
  const an = typeof a.value === "bigint";
  const bn = typeof b.value === "bigint";
  if (an && bn) return cmp(a.value, b.value);
  if (an) return -1;
  if (bn) return 1;
  return cmp(a.value, b.value);
}

function parseNumber(text: string, part: string): bigint | string {
  if (!NUMERIC.test(text)) return `Invalid character(s) found in ${part} number ${JSON.stringify(text)}`;
  if (text.length > 1 && text.startsWith("0"))
    return `${capitalise(part)} number must not contain leading zeroes ${JSON.stringify(text)}`;
  if (text === "") return `strconv.ParseUint: parsing "": invalid syntax`;
  const n = BigInt(text);
  if (n > UINT64_MAX) return `strconv.ParseUint: parsing ${JSON.stringify(text)}: value out of range`;
  return n;
}

function parsePrerelease(s: string): SemverPrerelease | string {
  if (s === "") return "Prerelease is empty";
  if (NUMERIC.test(s)) {
    if (s.length > 1 && s.startsWith("0"))
      return `Numeric PreRelease version must not contain leading zeroes ${JSON.stringify(s)}`;
    const n = BigInt(s);
    if (n > UINT64_MAX) return `strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`;
    return { value: n };
  }
  if (ALPHANUMERIC.test(s)) return { value: s };
  return `Invalid character(s) found in prerelease ${JSON.stringify(s)}`;
}

/** Go's `strings.SplitN`: at most `n` pieces, the last holding the remainder. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i === -1) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

function cmp<T extends bigint | number | string>(a: T, b: T): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
