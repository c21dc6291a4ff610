/**
 * A plain table as `kyverno test` and `kyverno apply --table` print it (their table printer's
 * borders: `│` between cells, a `│────│` rule above and below the header and under the last row),
 * so scripts that read Kyverno's tables read Bylaw's.
 */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const rule = "│" + widths.map((w) => "─".repeat(w + 2)).join("│") + "│";
  const fmt = (cells: readonly string[]): string =>
    "│" + widths.map((w, i) => ` ${(cells[i] ?? "").padEnd(w)} `).join("│") + "│";
  return [rule, fmt(headers), rule, ...rows.map(fmt), rule].join("\n");
}
