/**
 * Go's `path/filepath.Clean` on Unix: the shortest path equivalent to the input, by collapsing
 * repeated slashes, removing `.` elements, and resolving `..` against the element before it.
 */
export function goPathClean(path: string): string {
  if (path === "") return ".";
  const rooted = path.startsWith("/");
  const out: string[] = [];
  let dotdots = 0;
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length > dotdots) out.pop();
      else if (!rooted) {
        out.push("..");
        dotdots++;
      }
      continue;
    }
    out.push(part);
  }
  const joined = out.join("/");
  if (rooted) return `/${joined}`;
  return joined === "" ? "." : joined;
}
