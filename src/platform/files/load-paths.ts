import { statSync } from "node:fs";
import { parseDocuments, type LoadedDocument, type ParseLimits } from "../yaml/index.js";
import { failedDocument, loadDocumentFile } from "./load-document-file.js";
import { listDocumentFiles } from "./list-document-files.js";
import { loadParsedFile } from "./parsed-files-hook.js";
import { fileError } from "./read-text-file.js";
import { readStdin } from "./read-stdin.js";

interface LoadPathsOptions {
  /** Where `-` reads from; standard input by default. */
  readonly stdin?: () => Promise<string>;
  /** Limits passed to the YAML reader (and `maxBytes` to file reads). */
  readonly limits?: ParseLimits;
}

/** The name documents read from standard input carry as their source. */
const STDIN_SOURCE = "<stdin>";

/**
 * Load the documents of every path, in the order given. A path is a file (read whatever its
 * extension; `.json` as one JSON value, anything else as YAML), a directory (its `.yaml`, `.yml`
 * and `.json` files, recursively, sorted), or `-` for standard input (read once). Problems never
 * throw: a missing path or unreadable file becomes a document with an `error` naming the path.
 */
export async function loadPaths(paths: readonly string[], options: LoadPathsOptions = {}): Promise<LoadedDocument[]> {
  const limits = options.limits ?? {};
  // Parsed files in use (parsed-files-hook.ts) were read with the default limits only.
  const load = (file: string): LoadedDocument[] =>
    (options.limits === undefined ? loadParsedFile(file) : undefined) ?? loadDocumentFile(file, limits);
  const documents: LoadedDocument[] = [];
  let stdinRead = false;
  for (const path of paths) {
    if (path === "-") {
      if (stdinRead) continue;
      stdinRead = true;
      documents.push(...(await loadStdin(options.stdin ?? readStdin, limits)));
      continue;
    }
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (e) {
      documents.push(failedDocument(path, fileError(e, path).error.message));
      continue;
    }
    if (!isDirectory) {
      documents.push(...load(path));
      continue;
    }
    const files = await listDocumentFiles(path);
    if (!files.ok) {
      documents.push(failedDocument(path, files.error.message));
      continue;
    }
    for (const file of files.value) documents.push(...load(file));
  }
  return documents;
}

async function loadStdin(read: () => Promise<string>, limits: ParseLimits): Promise<LoadedDocument[]> {
  try {
    return parseDocuments(await read(), STDIN_SOURCE, limits);
  } catch (e) {
    return [failedDocument(STDIN_SOURCE, `cannot read standard input: ${e instanceof Error ? e.message : String(e)}`)];
  }
}
