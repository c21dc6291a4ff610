/**
 * Go's `path` package (slash-separated paths), which Kyverno uses to resolve `$( )` references:
 * `Clean`, `Join` and `IsAbs` with the same lexical rules.
 */

export function goPathIsAbs(p: string): boolean {
  return p.startsWith("/");
}

/** The shortest path equivalent to `p`: collapses `//`, `.` and `..` (never above the root). */
export function goPathClean(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const n = p.length;
  let out = rooted ? "/" : "";
  let r = rooted ? 1 : 0;
  let dotdot = rooted ? 1 : 0;
  while (r < n) {
    if (p[r] === "/") {
      r++;
    } else if (p[r] === "." && (r + 1 === n || p[r + 1] === "/")) {
      r++;
    } else if (p[r] === "." && p[r + 1] === "." && (r + 2 === n || p[r + 2] === "/")) {
      r += 2;
      if (out.length > dotdot) {
        let w = out.length - 1;
        while (w > dotdot && out[w] !== "/") w--;
        out = out.slice(0, w);
      } else if (!rooted) {
        out += out.length > 0 ? "/.." : "..";
        dotdot = out.length;
      }
    } else {
      if ((rooted && out.length !== 1) || (!rooted && out.length !== 0)) out += "/";
      const next = p.indexOf("/", r);
      const stop = next < 0 ? n : next;
      out += p.slice(r, stop);
      r = stop;
    }
  }
  return out === "" ? "." : out;
}

/** Joins the non-empty elements with `/` and cleans the result; all empty gives "". */
export function goPathJoin(...elements: readonly string[]): string {
  const parts = elements.filter((e) => e !== "");
  return parts.length === 0 ? "" : goPathClean(parts.join("/"));
}
