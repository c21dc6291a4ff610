import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ok, type Result } from "../../engine/index.js";
import { fileError } from "./read-text-file.js";

const DOCUMENT_EXTENSIONS = [".yaml", ".yml", ".json"];

/** Whether a file name ends in `.yaml`, `.yml` or `.json` (lower case, as Kyverno compares). */
export function isDocumentFile(name: string): boolean {
  return DOCUMENT_EXTENSIONS.some((ext) => name.endsWith(ext) && name.length > ext.length);
}

/**
 * Every `.yaml`, `.yml` and `.json` file under a directory, recursively, in the order a
 * lexical walk gives (entries sorted by name, a sub-directory's files where its name sorts, like
 * Go's filepath.Walk). Symbolic links to files are followed; links to directories are not, so
 * a link cycle cannot loop. Listed with synchronous calls, as files are read (read-text-file.ts).
 */
export function listDocumentFiles(dir: string): Promise<Result<string[]>> {
  const found: string[] = [];
  try {
    walk(dir, found);
  } catch (e) {
    return Promise.resolve(fileError(e, dir));
  }
  return Promise.resolve(ok(found));
}

function walk(dir: string, found: string[]): void {
  const entries = readdirSync(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      walk(path, found);
    } else if (isDocumentFile(entry.name)) {
      if (entry.isFile()) found.push(path);
      else if (entry.isSymbolicLink() && isFileTarget(path)) found.push(path);
    }
  }
}

function isFileTarget(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
