import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";

/**
 * A cache file's bytes when it is this user's and no one else may write it; undefined otherwise
 * (or when it is missing or unreadable). Caches (compiled code, parsed YAML) are trusted only then:
 * another user who could write one could change what Bylaw runs or reads.
 */
export function readOwnFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    const uid = process.getuid?.();
    if ((uid !== undefined && info.uid !== uid) || (info.mode & 0o022) !== 0 || !info.isFile()) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
