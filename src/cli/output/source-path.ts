/** How output names a resource's file: relative to the working folder when inside it, with `/`. */
import { isAbsolute, relative, sep } from "node:path";

export function displaySource(source: string, cwd: string): string {
  if (source.startsWith("<")) return source;
  const rel = relative(cwd, source);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return source.split(sep).join("/");
  return rel.split(sep).join("/");
}
