/**
 * The operators of a string pattern atom (`pkg/engine/operator`): `>=`, `<=`, `>`, `<`, `!` as a
 * prefix (only when the atom has at least two characters), then the ranges `a-b` and `a!-b`.
 */
export type Operator = "" | ">=" | "<=" | ">" | "<" | "!";

const PREFIXES: readonly Exclude<Operator, "">[] = [">=", "<=", ">", "<", "!"];
const RANGE_END = String.raw`[-|+]?[0-9]+(?:\.[0-9]+)?[A-Za-z]*`;
const IN_RANGE = new RegExp(`^(${RANGE_END})-(${RANGE_END})$`);
const NOT_IN_RANGE = new RegExp(`^(${RANGE_END})!-(${RANGE_END})$`);

type ParsedAtom =
  | { readonly kind: "compare"; readonly op: Operator; readonly operand: string }
  | { readonly kind: "inRange"; readonly low: string; readonly high: string }
  | { readonly kind: "notInRange"; readonly low: string; readonly high: string };

/** Parses one atom of a string pattern (already split on `|` and `&`, and trimmed). */
export function parseAtom(atom: string): ParsedAtom {
  if (atom.length >= 2) {
    for (const op of PREFIXES) {
      if (atom.startsWith(op)) return { kind: "compare", op, operand: goTrimSpace(atom.slice(op.length)) };
    }
    const notIn = NOT_IN_RANGE.exec(atom);
    if (notIn !== null) return { kind: "notInRange", low: notIn[1] ?? "", high: notIn[2] ?? "" };
    const inRange = IN_RANGE.exec(atom);
    if (inRange !== null) return { kind: "inRange", low: inRange[1] ?? "", high: inRange[2] ?? "" };
  }
  return { kind: "compare", op: "", operand: goTrimSpace(atom) };
}

/** Applies an operator to the result of a three-way comparison (value against operand). */
export function applyOperator(op: Operator, cmp: -1 | 0 | 1): boolean {
  switch (op) {
    case "":
      return cmp === 0;
    case "!":
      return cmp !== 0;
    case ">":
      return cmp === 1;
    case "<":
      return cmp === -1;
    case ">=":
      return cmp >= 0;
    case "<=":
      return cmp <= 0;
  }
}

const GO_SPACE = "[\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]";
const GO_TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, "g");

/** Go `strings.TrimSpace` (Unicode white space, not the BOM). */
function goTrimSpace(s: string): string {
  return s.replace(GO_TRIM, "");
}

/** Go `strings.Trim(s, " ")`: spaces only. */
export function trimSpaces(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s[a] === " ") a++;
  while (b > a && s[b - 1] === " ") b--;
  return s.slice(a, b);
}
