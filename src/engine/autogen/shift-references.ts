/**
 * Shift `$(…)` manifest references in a validate message when autogen nests the pattern
 * (Kyverno `FindAndShiftReferences`): every occurrence of the pivot (`pattern`, `deny`,
 * `anyPattern/<i>`, …) inside a reference gets `/<shift>` appended, e.g.
 * `$(./../pattern/spec/x)` → `$(./../pattern/spec/template/spec/x)`.
 */

/** `$(…)` at the start, or after any character but a backslash; it ends at the last `)` before a space. */
const REFERENCE = /^\$\(.[^ ]*\)|[^\\]\$\(.[^ ]*\)/g;

export function shiftReferences(message: string, shift: string, pivotName: string): string {
  let value = message;
  let pivot = pivotName;
  for (const found of message.match(REFERENCE) ?? []) {
    const initial = found.startsWith("$(");
    const reference = initial ? found : found.slice(1);
    // Kyverno keeps the pivot it computed for the first anyPattern reference for the later ones.
    if (pivot === "anyPattern") {
      const at = reference.indexOf(pivot);
      const index = reference.slice(at + pivot.length + 1).split("/")[0] ?? "";
      pivot = `${pivot}/${index}`;
    }
    const shifted = reference.split(pivot).join(`${pivot}/${shift}`);
    value = value.replace(found, () => (initial ? "" : found.charAt(0)) + shifted);
  }
  return value;
}
