/** A plain box-drawn table, like the one `kyverno test` prints. */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (l: string, m: string, r: string): string => l + widths.map((w) => "─".repeat(w + 2)).join(m) + r;
  const fmt = (cells: readonly string[]): string =>
    "│" + widths.map((w, i) => ` ${(cells[i] ?? "").padEnd(w)} `).join("│") + "│";
  return [line("┌", "┬", "┐"), fmt(headers), line("├", "┼", "┤"), ...rows.map(fmt), line("└", "┴", "┘")].join("\n");
}
