/**
 * Where loadPaths looks before it reads and parses a file itself: a source of parsed files that a
 * command installs for its run (the parse cache, parse-cache.ts). Used only for reads with the
 * default limits.
 */
import type { LoadedDocument } from "../yaml/types.js";

/** Parsed files: a path's documents, exactly as loadDocumentFile gives them, or undefined (read it yourself). */
export interface ParsedFiles {
  load(path: string): LoadedDocument[] | undefined;
}

let current: ParsedFiles | undefined;

/** Make loadPaths (with default limits) ask `files` first; undefined stops that. */
export function useParsedFiles(files: ParsedFiles | undefined): void {
  current = files;
}

/** The documents of `path` from the parsed files in use, if any. */
export function loadParsedFile(path: string): LoadedDocument[] | undefined {
  return current?.load(path);
}
