/** The operator prefix of a `$( )` reference (`$(<./../x)`), read as Kyverno's pattern operators are. */

const IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;
const NOT_IN_RANGE = /^([-|+]?\d+(?:\.\d+)?[A-Za-z]*)!-([-|+]?\d+(?:\.\d+)?[A-Za-z]*)$/;

type ReferenceOperator = "" | ">=" | "<=" | ">" | "<" | "!" | "!-" | "-";

/** `>=`, `<=`, `>`, `<`, `!`, or a range form; "" (equality) for anything shorter than 2 characters. */
export function operatorOf(pattern: string): ReferenceOperator {
  if (pattern.length < 2) return "";
  for (const op of [">=", "<=", ">", "<", "!"] as const) {
    if (pattern.startsWith(op)) return op;
  }
  if (NOT_IN_RANGE.test(pattern)) return "!-";
  if (IN_RANGE.test(pattern)) return "-";
  return "";
}

/** Go's `strings.Trim(s, cutset)`: strips leading and trailing characters found in `cutset`. */
export function trimCutset(s: string, cutset: string): string {
  const chars = [...s];
  let start = 0;
  let end = chars.length;
  while (start < end && cutset.includes(chars[start] ?? "")) start++;
  while (end > start && cutset.includes(chars[end - 1] ?? "")) end--;
  return chars.slice(start, end).join("");
}
