import { parseDocuments, parseJsonDocument, type LoadedDocument, type ParseLimits } from "../yaml/index.js";
import { readTextFileSync } from "./read-text-file.js";

/**
 * The documents of one file: `.json` as one JSON value, anything else as YAML. A file that cannot
 * be read is one document with an `error` naming the path. Never throws.
 */
export function loadDocumentFile(path: string, limits: ParseLimits = {}): LoadedDocument[] {
  const text = readTextFileSync(path, limits.maxBytes);
  if (!text.ok) return [failedDocument(path, text.error.message)];
  return parseDocumentText(text.value, path, limits);
}

/** The documents of a file's text, read as loadDocumentFile reads the file at `path`. */
export function parseDocumentText(text: string, path: string, limits: ParseLimits = {}): LoadedDocument[] {
  return path.endsWith(".json") ? parseJsonDocument(text, path, limits) : parseDocuments(text, path, limits);
}

/** A document that stands for a path that could not be read. */
export function failedDocument(source: string, error: string): LoadedDocument {
  return { source, index: 0, error };
}
