import type { JsonValue } from "../../engine/index.js";

/** One document read from a file or stdin. */
export interface LoadedDocument {
  /** File path, or "<stdin>". */
  readonly source: string;
  /** 0-based document index within the file, counting empty documents too. */
  readonly index: number;
  /** 1-based line where the document starts. */
  readonly line?: number;
  /** The document's value; absent when the document is empty or failed. */
  readonly value?: JsonValue;
  /** What went wrong, naming the source, the document (counted from 1) and the line/column. */
  readonly error?: string;
}

/** Limits that protect against hostile input. */
export interface ParseLimits {
  /** Largest text accepted, in characters. Default 64 MiB. */
  readonly maxBytes?: number;
  /** Deepest nesting of collections. Default 1000. */
  readonly maxDepth?: number;
  /** Most nodes one document may create by expanding aliases. Default 1,000,000. */
  readonly maxAliasNodes?: number;
}

export const DEFAULT_LIMITS: Required<ParseLimits> = {
  maxBytes: 64 * 1024 * 1024,
  maxDepth: 1000,
  maxAliasNodes: 1_000_000,
};
