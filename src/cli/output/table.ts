/**
 * A plain table as `kyverno test` and `kyverno apply --table` print it (their table printer,
 * lensesio/tableprinter over kataras/tablewriter, as Kyverno's output/table configures it): `│`
 * between cells, a `│────│` rule above and below the header and under the last row; with more than
 * ten rows the first header also counts them (`ID (11) `); a cell longer than 300 bytes is wrapped
 * at word boundaries (the printer's RowCharLimit), and a cell's lines stack in its row, the other
 * cells padded. So scripts and eyes that read Kyverno's tables read Bylaw's.
 *
 * The header cells are in Kyverno's colours (green on black, each padded cell between
 * `ESC[40;32m` and `ESC[0m`) unless `plain` (--remove-color): Kyverno's table writer colours its
 * header whether or not stdout is a terminal, so a piped table is byte for byte Kyverno's.
 */
const ROW_CHAR_LIMIT = 300;

const HEADER_ON = "\x1b[40;32m";
const COLOUR_OFF = "\x1b[0m";

export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  options: { readonly plain: boolean },
): string {
  // The printer writes the count as `ID (11) `, its trailing space kept.
  const titled = rows.length > 10 ? [`${headers[0] ?? ""} (${rows.length}) `, ...headers.slice(1)] : headers;
  const lines = rows.map((r) => titled.map((_, i) => wrapped(r[i] ?? "").split("\n")));
  const widths = titled.map((h, i) => Math.max(h.length, ...lines.flatMap((r) => (r[i] ?? []).map((l) => l.length))));
  const rule = "│" + widths.map((w) => "─".repeat(w + 2)).join("│") + "│";
  const line = (cells: readonly string[], colour = false): string =>
    "│" +
    widths
      .map((w, i) => {
        const cell = (cells[i] ?? "").padEnd(w);
        return ` ${colour ? `${HEADER_ON}${cell}${COLOUR_OFF}` : cell} `;
      })
      .join("│") +
    "│";
  const row = (cells: readonly (readonly string[])[]): string[] => {
    const height = Math.max(1, ...cells.map((c) => c.length));
    return Array.from({ length: height }, (_, k) => line(cells.map((c) => c[k] ?? "")));
  };
  return [rule, line(titled, !options.plain), rule, ...lines.flatMap(row), rule].join("\n");
}

const utf8 = new TextEncoder();
const bytes = (s: string): number => utf8.encode(s).length;

/**
 * A cell as the printer's RowCharLimit leaves it: up to 300 bytes as it is; a longer one with line
 * breaks as it is (less a trailing break and the byte before it); else its words refilled into lines,
 * each word beyond a line's first costing its length and two (the printer's own count).
 */
function wrapped(cell: string): string {
  if (bytes(cell) <= ROW_CHAR_LIMIT) return cell;
  if (cell.includes("\n")) {
    if (!cell.endsWith("\n")) return cell;
    const cut = cell.slice(0, -2);
    return bytes(cut) > ROW_CHAR_LIMIT ? wrapped(cut) : cut;
  }
  const [first, ...rest] = cell.trim().split(/\s+/);
  if (first === undefined || first === "") return cell;
  let out = first;
  let room = ROW_CHAR_LIMIT - bytes(first);
  for (const word of rest) {
    const cost = bytes(word) + 1;
    if (cost <= room) {
      out += ` ${word}`;
      room -= cost + 1;
    } else {
      out += `\n${word}`;
      room = ROW_CHAR_LIMIT - bytes(word);
    }
  }
  return out;
}
