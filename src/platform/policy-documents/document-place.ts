/**
 * How a loaded policy document is named in messages, the same in `bylaw apply`/`bylaw test`, the
 * library and `bylaw serve`'s policy folder: `file: document N (line L)`, and its metadata.name.
 */
import type { LoadedDocument } from "../yaml/index.js";

/** `file: document N (line L)`: N counts from 1; the line is left out when it is not known. */
export function documentPlace(d: LoadedDocument): string {
  return `${d.source}: document ${d.index + 1}${d.line !== undefined ? ` (line ${d.line})` : ""}`;
}

/** A document's metadata.name, or `(unnamed)`. */
export function documentName(doc: unknown): string {
  const md = (doc as { metadata?: { name?: unknown } }).metadata;
  return typeof md?.name === "string" ? md.name : "(unnamed)";
}
