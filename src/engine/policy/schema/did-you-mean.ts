/** The "did you mean" hint for a field the schema does not declare. */

/** `did you mean "validate"?` for near names (same letters in another case, or a few edits away), else the known names. */
export function didYouMean(key: string, names: readonly string[]): string {
  const near = nearNames(key, names);
  if (near.length > 0) return `did you mean ${near.map((n) => JSON.stringify(n)).join(" or ")}?`;
  return `known fields here: ${names.join(", ")}`;
}

/** The names near `key`: the same letters in another case, or a few edits away (a quarter of its length, at least one). */
export function nearNames(key: string, names: readonly string[]): string[] {
  return names.filter(
    (n) => n.toLowerCase() === key.toLowerCase() || editDistance(n, key) <= Math.max(1, Math.floor(key.length / 4)),
  );
}

/** Levenshtein distance; field names are short. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost));
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}
