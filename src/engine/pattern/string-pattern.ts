/**
 * A string pattern leaf (`pattern.validateStringPatterns`), compiled once:
 * `a | b` is OR, `a & b` is AND (each part trimmed of spaces), and each atom is an optional
 * operator plus an operand, or a range `lo-hi` / `lo!-hi`. An atom compares as a Go duration
 * when both sides parse as one, else as a Kubernetes quantity, else (for `=` and `!` only) as a
 * wildcard string.
 */
import type { JsonValue } from "../api/json.js";
import { parseDuration } from "../values/duration.js";
import type { Quantity } from "../values/quantity.js";
import { compareQuantities, parseQuantity } from "../values/quantity.js";
import { goFormatFixed } from "../go/format-fixed.js";
import { formatFloatE, goIntString, isGoInt } from "./go-format.js";
import type { Operator } from "./operator.js";
import { applyOperator, parseAtom, trimSpaces } from "./operator.js";
import type { WildcardMatcher } from "./wildcard-matcher.js";
import { compileWildcard } from "./wildcard-matcher.js";

interface CompareAtom {
  readonly kind: "compare";
  readonly op: Operator;
  readonly operand: string;
  readonly duration: bigint | undefined;
  readonly quantity: Quantity | undefined;
  /** The operand as a wildcard string, compiled. */
  readonly match: WildcardMatcher;
}

type Atom =
  | CompareAtom
  | { readonly kind: "inRange"; readonly low: CompareAtom; readonly high: CompareAtom }
  | { readonly kind: "notInRange"; readonly low: CompareAtom; readonly high: CompareAtom };

type StringPatternTest = (value: JsonValue | undefined) => boolean;

/** Compiles a string pattern into a test of a resource value (`undefined` means absent). */
export function compileStringPattern(pattern: string): StringPatternTest {
  const anyOf: Atom[][] = pattern.split("|").map((alt) =>
    trimSpaces(alt)
      .split("&")
      .map((part) => compileAtom(trimSpaces(part))),
  );
  // Most patterns compare words only ("RuntimeDefault | Localhost"): they never read the value as a
  // duration or a quantity, and share one unused reader instead of making one per test.
  const words = anyOf.every((allOf) => allOf.every((atom) => !readsNumbers(atom)));
  const unused = new ValueText(null);
  return (value) => {
    if (value === pattern) return true;
    const text = words ? unused : new ValueText(value);
    for (const allOf of anyOf) {
      let all = true;
      for (let i = 0; i < allOf.length && all; i++) all = testAtom(allOf[i] as Atom, value, text);
      if (all) return true;
    }
    return false;
  };
}

function readsNumbers(atom: Atom): boolean {
  const numeric = (a: CompareAtom): boolean => a.duration !== undefined || a.quantity !== undefined;
  return atom.kind === "compare" ? numeric(atom) : numeric(atom.low) || numeric(atom.high);
}

function compileAtom(raw: string): Atom {
  const parsed = parseAtom(raw);
  if (parsed.kind === "compare") return compareAtom(parsed.op, parsed.operand);
  if (parsed.kind === "inRange") {
    return { kind: "inRange", low: compareAtom(">=", parsed.low), high: compareAtom("<=", parsed.high) };
  }
  return { kind: "notInRange", low: compareAtom("<", parsed.low), high: compareAtom(">", parsed.high) };
}

function compareAtom(op: Operator, operand: string): CompareAtom {
  return {
    kind: "compare",
    op,
    operand,
    duration: parseDuration(operand),
    quantity: parseQuantity(operand),
    match: compileWildcard(operand),
  };
}

function testAtom(atom: Atom, value: JsonValue | undefined, text: ValueText): boolean {
  switch (atom.kind) {
    case "compare":
      return testCompare(atom, value, text);
    case "inRange":
      return testCompare(atom.low, value, text) && testCompare(atom.high, value, text);
    case "notInRange":
      return testCompare(atom.low, value, text) || testCompare(atom.high, value, text);
  }
}

function testCompare(atom: CompareAtom, value: JsonValue | undefined, text: ValueText): boolean {
  if (atom.duration !== undefined) {
    const d = text.duration();
    if (d !== undefined) return applyOperator(atom.op, d < atom.duration ? -1 : d > atom.duration ? 1 : 0);
  }
  if (atom.quantity !== undefined) {
    const q = text.quantity();
    if (q !== undefined) return applyOperator(atom.op, compareQuantities(q, atom.quantity));
  }
  if (atom.op !== "" && atom.op !== "!") return false;
  const s = wildcardText(value);
  if (s === undefined) return false;
  const matched = atom.match(s);
  return atom.op === "!" ? !matched : matched;
}

/**
 * The value as Kyverno's `convertNumberToString` gives it for duration and quantity parsing:
 * absent/null is `"0"`, floats use `%f`, booleans and containers do not convert.
 * Parses are cached because one leaf may test several atoms.
 */
class ValueText {
  private parsedDuration: bigint | undefined | null = null;
  private parsedQuantity: Quantity | undefined | null = null;
  private readonly text: string | undefined;

  constructor(value: JsonValue | undefined) {
    this.text = numberText(value);
  }

  duration(): bigint | undefined {
    if (this.parsedDuration === null)
      this.parsedDuration = this.text === undefined ? undefined : parseDuration(this.text);
    return this.parsedDuration;
  }

  quantity(): Quantity | undefined {
    if (this.parsedQuantity === null)
      this.parsedQuantity = this.text === undefined ? undefined : parseQuantity(this.text);
    return this.parsedQuantity;
  }
}

function numberText(value: JsonValue | undefined): string | undefined {
  if (value === undefined || value === null) return "0";
  if (typeof value === "string") return value;
  if (typeof value === "number") return isGoInt(value) ? goIntString(value) : goFormatFixed(value);
  return undefined;
}

/** The value as `compareString` stringifies it: floats in `%E` form; absent and containers fail. */
function wildcardText(value: JsonValue | undefined): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return isGoInt(value) ? goIntString(value) : formatFloatE(value);
  return undefined;
}
