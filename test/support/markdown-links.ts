/** The link targets and heading anchors of a Markdown text, outside code blocks and code spans. */

/** The text without fenced code blocks and inline code spans, which hold no links. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "");
}

/** The targets of inline links and images: `[text](target)` and `[text](target "title")`. */
export function markdownLinks(text: string): string[] {
  const out: string[] = [];
  for (const m of prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) if (m[1]) out.push(m[1]);
  return out;
}

/** GitHub's anchors for the headings: lower case, punctuation dropped, spaces to dashes, repeats numbered. */
export function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (m[1] ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}
