/**
 * Kyverno's list flags (`strings` in its help: -r, -e, --json, --crd-paths, --set, …) read each
 * occurrence as one line of CSV, so `-r a.yaml,b.yaml` is two paths and `-r "a,b.yaml"` is one.
 * An empty occurrence adds nothing. A quote inside an unquoted entry, or text after a closing
 * quote, is a usage error naming the flag, as Kyverno's flag parser refuses it.
 */

type Split = { ok: true; items: string[] } | { ok: false; error: string };

/** One occurrence's entries, or the reason it is not a CSV line. */
function splitOne(raw: string): { ok: true; items: string[] } | { ok: false; reason: string } {
  if (raw === "") return { ok: true, items: [] };
  const items: string[] = [];
  let at = 0;
  for (;;) {
    if (raw[at] === '"') {
      let value = "";
      let i = at + 1;
      for (;;) {
        if (i >= raw.length)
          return { ok: false, reason: `column ${i + 1}: the quote opened at column ${at + 1} is not closed` };
        if (raw[i] === '"') {
          if (raw[i + 1] === '"') {
            value += '"';
            i += 2;
            continue;
          }
          break;
        }
        value += raw[i];
        i += 1;
      }
      items.push(value);
      at = i + 1;
      if (at >= raw.length) return { ok: true, items };
      if (raw[at] !== ",") return { ok: false, reason: `column ${at + 1}: text after a closing quote` };
      at += 1;
      continue;
    }
    const comma = raw.indexOf(",", at);
    const value = comma < 0 ? raw.slice(at) : raw.slice(at, comma);
    const quote = value.indexOf('"');
    if (quote >= 0)
      return {
        ok: false,
        reason: `column ${at + quote + 1}: a quote inside an unquoted entry (quote the whole entry)`,
      };
    items.push(value);
    if (comma < 0) return { ok: true, items };
    at = comma + 1;
  }
}

/** Every occurrence of `--flag`, split at commas (CSV quoting), in order. */
export function splitStringList(flag: string, occurrences: readonly string[] | undefined): Split {
  const items: string[] = [];
  for (const raw of occurrences ?? []) {
    const one = splitOne(raw);
    if (!one.ok) return { ok: false, error: `invalid argument ${JSON.stringify(raw)} for --${flag}: ${one.reason}` };
    items.push(...one.items);
  }
  return { ok: true, items };
}
