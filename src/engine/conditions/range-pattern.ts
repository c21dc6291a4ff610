/**
 * The string-pattern check Kyverno's set operators reuse for ranges (`pkg/engine/pattern`
 * `Validate` with a string value and a string pattern, and `pkg/engine/operator`):
 * `a-b` means `>= a & <= b`, `a!-b` means `< a | > b`; each bound compares as a Go duration,
 * then as a Kubernetes quantity, and `=`/`!` fall back to a wildcard match.
 */
import { parseDuration } from "../values/duration.js";
import { compareQuantities, parseQuantity } from "../values/quantity.js";
import { wildcardMatch } from "../values/wildcard.js";

export type PatternOperator = "" | ">=" | "<=" | ">" | "<" | "!" | "-" | "!-";

const IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;
const NOT_IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)!-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;
const PREFIXES: readonly PatternOperator[] = [">=", "<=", ">", "<", "!"];

/** `GetOperatorFromStringPattern`: the leading operator, or a range form, or "" (equality). */
export function operatorOfPattern(pattern: string): PatternOperator {
  if (pattern.length < 2) return "";
  for (const p of PREFIXES) if (pattern.startsWith(p)) return p;
  if (NOT_IN_RANGE.test(pattern)) return "!-";
  if (IN_RANGE.test(pattern)) return "-";
  return "";
}

/** Whether a string value satisfies a string pattern (`|` = or, `&` = and, operators, ranges). */
export function matchesStringPattern(value: string, pattern: string): boolean {
  if (value === pattern) return true;
  return pattern.split("|").some((alt) =>
    trimSpaces(alt)
      .split("&")
      .every((part) => matchesOne(value, trimSpaces(part))),
  );
}

function matchesOne(value: string, pattern: string): boolean {
  const op = operatorOfPattern(pattern);
  if (op === "-" || op === "!-") {
    const m = (op === "-" ? IN_RANGE : NOT_IN_RANGE).exec(pattern);
    if (m === null) return false;
    const [, low = "", high = ""] = m;
    return op === "-"
      ? matchesOne(value, `>= ${low}`) && matchesOne(value, `<= ${high}`)
      : matchesOne(value, `< ${low}`) || matchesOne(value, `> ${high}`);
  }
  return compareWith(value, pattern.slice(op.length).trim(), op);
}

function compareWith(value: string, pattern: string, op: PatternOperator): boolean {
  const pd = parseDuration(pattern);
  const vd = pd === undefined ? undefined : parseDuration(value);
  if (pd !== undefined && vd !== undefined) return holds(vd < pd ? -1 : vd > pd ? 1 : 0, op);
  const pq = parseQuantity(pattern);
  const vq = pq === undefined ? undefined : parseQuantity(value);
  if (pq !== undefined && vq !== undefined) return holds(compareQuantities(vq, pq), op);
  if (op === "") return wildcardMatch(pattern, value);
  if (op === "!") return !wildcardMatch(pattern, value);
  return false;
}

function holds(c: -1 | 0 | 1, op: PatternOperator): boolean {
  switch (op) {
    case "":
      return c === 0;
    case "!":
      return c !== 0;
    case ">":
      return c > 0;
    case "<":
      return c < 0;
    case ">=":
      return c >= 0;
    case "<=":
      return c <= 0;
    default:
      return false;
  }
}

/** Go's `strings.Trim(s, " ")`: spaces only. */
function trimSpaces(s: string): string {
  return s.replace(/^ +| +$/g, "");
}
