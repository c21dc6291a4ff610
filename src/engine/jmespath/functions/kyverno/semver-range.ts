/**
 * blang/semver v4 `ParseRange`: space-separated comparators are ANDed, `||` ORs groups, and
 * `x` wildcards expand to bounds (`>=1.2.x` → `>=1.2.0`, `1.x` → `>=1.0.0 <2.0.0`). Quirks kept:
 * one-character parts are dropped by the splitter, and `!1.x` can never match.
 */
import { compareSemver, parseSemverOrError, type Semver } from "../../../values/semver.js";

type Range = (v: Semver) => boolean;

/** Splits on spaces, except after `>`, `<` or `=`; parts shorter than two characters are lost. */
function splitAndTrim(s: string): string[] {
  const result: string[] = [];
  let last = 0;
  let lastChar = "";
  for (let i = 0; i < s.length; i++) {
    if (s[i] === " " && !">=<".includes(lastChar === "" ? "_" : lastChar)) {
      if (last < i - 1) result.push(s.slice(last, i));
      last = i + 1;
    } else if (s[i] !== " ") {
      lastChar = s[i] ?? "";
    }
  }
  if (last < s.length - 1) result.push(s.slice(last));
  return result.map((p) => p.replaceAll(" ", ""));
}

function splitOrParts(parts: string[]): string[][] | string {
  const out: string[][] = [];
  let last = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i] === "||") {
      if (i === 0) return "First element in range is '||'";
      out.push(parts.slice(last, i));
      last = i + 1;
    }
  }
  if (last === parts.length) return "Last element in range is '||'";
  out.push(parts.slice(last));
  return out;
}

function splitComparatorVersion(s: string): [string, string] | string {
  const i = s.search(/\p{Nd}/u);
  if (i === -1) return `Could not get version from string: ${JSON.stringify(s)}`;
  return [s.slice(0, i).trim(), s.slice(i)];
}

/** blang's incrementMajor/MinorVersion: "" when the part is not an integer. */
function bump(v: string, index: number): string {
  const parts = v.split(".");
  const part = parts[index] ?? "";
  if (!/^[-+]?[0-9]+$/.test(part)) return "";
  parts[index] = String(Number(part) + 1);
  return parts.join(".");
}

function expandWildcards(groups: string[][]): string[][] | string {
  const out: string[][] = [];
  for (const group of groups) {
    const parts: string[] = [];
    for (let ap of group) {
      if (ap.includes("x")) {
        const split = splitComparatorVersion(ap);
        if (typeof split === "string") return split;
        const [op, v] = split;
        const dots = v.split(".");
        const kind =
          dots[dots.length - 1] === "x" ? (dots.length === 2 ? "minor" : dots.length === 3 ? "patch" : "none") : "none";
        let flat = v.replace(".x.x", ".x").replace(".x", ".0");
        if (flat.split(".").length === 2) flat += ".0";
        let resultOp = "";
        let increment = false;
        if (op === ">") [resultOp, increment] = [">=", true];
        else if (op === ">=") resultOp = ">=";
        else if (op === "<") resultOp = "<";
        else if (op === "<=") [resultOp, increment] = ["<", true];
        else if (op === "" || op === "=" || op === "==") {
          parts.push(`>=${flat}`);
          [resultOp, increment] = ["<", true];
        } else if (op === "!=" || op === "!") {
          parts.push(`<${flat}`);
          [resultOp, increment] = [">=", true];
        }
        let version = flat;
        if (increment) version = kind === "patch" ? bump(flat, 1) : kind === "minor" ? bump(flat, 0) : "";
        ap = resultOp + version;
      }
      parts.push(ap);
    }
    out.push(parts);
  }
  return out;
}

const COMPARATORS: Record<string, (c: number) => boolean> = {
  "": (c) => c === 0,
  "=": (c) => c === 0,
  "==": (c) => c === 0,
  ">": (c) => c > 0,
  ">=": (c) => c >= 0,
  "<": (c) => c < 0,
  "<=": (c) => c <= 0,
  "!": (c) => c !== 0,
  "!=": (c) => c !== 0,
};

/** Parses a range, or returns blang/semver's error text. */
export function parseSemverRange(s: string): Range | string {
  const groups = splitOrParts(splitAndTrim(s));
  if (typeof groups === "string") return groups;
  const expanded = expandWildcards(groups);
  if (typeof expanded === "string") return expanded;
  const ors: Range[] = [];
  for (const group of expanded) {
    const ands: Range[] = [];
    for (const ap of group) {
      const split = splitComparatorVersion(ap);
      if (typeof split === "string") return split;
      const [op, vs] = split;
      const cmp = Object.prototype.hasOwnProperty.call(COMPARATORS, op) ? COMPARATORS[op] : undefined;
      if (cmp === undefined)
        return `Could not parse Range ${JSON.stringify(ap)}: Could not parse comparator ${JSON.stringify(op)} in ${JSON.stringify(op + vs)}`;
      const version = parseSemverOrError(vs);
      if (typeof version === "string") {
        return `Could not parse Range ${JSON.stringify(ap)}: Could not parse version ${JSON.stringify(vs)} in ${JSON.stringify(op + vs)}: ${version}`;
      }
      ands.push((v) => cmp(compareSemver(v, version)));
    }
    ors.push((v) => ands.every((f) => f(v)));
  }
  return (v) => ors.some((f) => f(v));
}
