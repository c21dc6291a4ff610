/**
 * The parse cache: what a file's YAML/JSON text parsed to, kept on disk so that the next run over
 * unchanged files does not parse them again (parsing is the largest single cost of `bylaw test` over
 * many suites: docs/adr/0014-bundled-cli.md). It lives in the folder of the build's compile cache, so
 * it is tied to the exact code that parsed (another build, or Node version, never reads it), is
 * turned off by the same BYLAW_COMPILE_CACHE=off, and is removed with it.
 *
 * An entry is named for a SHA-256 of the path and the whole text, so any change to a file's content
 * is a miss: no timestamps are trusted. It holds the documents as loadDocumentFile gives them for that
 * path (v8.serialize). Entries are read only when they belong to this user and no one else may
 * write them (read-own-file.ts; or, once for all, when the folder is this user's and closed to
 * others); a file that does not deserialize is a miss. Every cache error is
 * ignored: the cache can make a run faster, never fail or change one. Files over MAX_TEXT, and
 * entries over MAX_ENTRY_BYTES, are not cached; a folder that would hold over MAX_ENTRIES entries or
 * MAX_BYTES bytes is emptied before new entries are written.
 */
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import type { LoadedDocument } from "../yaml/types.js";
import { parseDocumentText } from "./load-document-file.js";
import type { ParsedFiles } from "./parsed-files-hook.js";
import { readOwnFile } from "./read-own-file.js";
import { readTextFileSync } from "./read-text-file.js";

/** Texts longer than this (characters) are parsed every time. */
export const MAX_TEXT = 1024 * 1024;
/** An entry larger than this (bytes, serialized) is not written. */
export const MAX_ENTRY_BYTES = 2 * 1024 * 1024;
/** Entries one cache folder may hold, and their bytes all together. */
export const MAX_ENTRIES = 20_000;
export const MAX_BYTES = 256 * 1024 * 1024;

/** The cache's bounds (the constants above by default; tests set small ones). */
export interface ParseCacheLimits {
  readonly maxEntries?: number;
  readonly maxBytes?: number;
  readonly maxEntryBytes?: number;
}

export class ParseCache implements ParsedFiles {
  readonly #dir: string;
  readonly #limits: Required<ParseCacheLimits>;
  readonly #pending = new Map<string, Buffer>();
  #hits = 0;
  #misses = 0;
  /** Whether the size of the folder was checked (at the first save). */
  #checkedSize = false;
  /** Whether the folder is this user's and closed to others (found at the first read). */
  #privateDir: boolean | undefined;

  constructor(dir: string, limits: ParseCacheLimits = {}) {
    this.#dir = dir;
    this.#limits = { maxEntries: limits.maxEntries ?? MAX_ENTRIES, maxBytes: limits.maxBytes ?? MAX_BYTES, maxEntryBytes: limits.maxEntryBytes ?? MAX_ENTRY_BYTES };
  }

  load(path: string): LoadedDocument[] | undefined {
    const text = readTextFileSync(path);
    // A file that cannot be read is loadDocumentFile's to report.
    if (!text.ok || text.value.length > MAX_TEXT) return undefined;
    const entry = join(this.#dir, createHash("sha256").update(path).update("\0").update(text.value).digest("hex"));
    // Parsed earlier in this run, or by an earlier run.
    const bytes = this.#pending.get(entry) ?? this.#readEntry(entry);
    if (bytes !== undefined) {
      try {
        const documents: unknown = deserialize(bytes);
        if (Array.isArray(documents)) {
          this.#hits++;
          return documents as LoadedDocument[];
        }
      } catch {
        // not a cache entry after all: parse
      }
    }
    this.#misses++;
    const documents = parseDocumentText(text.value, path);
    // Serialized now: the caller may change what it is given.
    if (!this.#pending.has(entry)) {
      const bytes = serialize(documents);
      if (bytes.length <= this.#limits.maxEntryBytes) this.#pending.set(entry, bytes);
    }
    return documents;
  }

  /**
   * An entry's bytes. When the folder is this user's and no one else may enter or write it, nothing
   * in it can be anyone else's doing, so each entry is read directly (one call instead of four);
   * otherwise each entry is checked as read-own-file.ts checks it.
   */
  #readEntry(entry: string): Buffer | undefined {
    this.#privateDir ??= isPrivateDir(this.#dir);
    if (!this.#privateDir) return readOwnFile(entry);
    try {
      return readFileSync(entry);
    } catch {
      return undefined;
    }
  }

  /** Whether the folder and what is pending would hold more entries or bytes than the limits allow. */
  #overBudget(): boolean {
    const names = readdirSync(this.#dir);
    if (names.length + this.#pending.size > this.#limits.maxEntries) return true;
    let bytes = 0;
    for (const b of this.#pending.values()) bytes += b.length;
    for (const name of names) {
      try {
        bytes += lstatSync(join(this.#dir, name)).size;
      } catch {
        // removed by another run meanwhile
      }
    }
    return bytes > this.#limits.maxBytes;
  }

  /** Files found in the cache, and files parsed, so far. */
  get counts(): { readonly hits: number; readonly misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  /** Write the entries this run parsed; never throws. */
  save(): void {
    if (this.#pending.size === 0) return;
    try {
      mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      // Counted at the first save only: a worker thread saves after every suite.
      if (!this.#checkedSize && this.#overBudget()) {
        rmSync(this.#dir, { recursive: true, force: true });
        mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
      }
      this.#checkedSize = true;
      for (const [entry, bytes] of this.#pending) {
        const tmp = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
        writeFileSync(tmp, bytes, { mode: 0o600 });
        renameSync(tmp, entry);
      }
    } catch {
      // a cache that cannot be written is no cache
    }
    this.#pending.clear();
  }
}

/** Whether `dir` is a real folder of this user that no one else may enter or write. */
function isPrivateDir(dir: string): boolean {
  try {
    const info = lstatSync(dir);
    const uid = process.getuid?.();
    return info.isDirectory() && (uid === undefined || info.uid === uid) && (info.mode & 0o077) === 0;
  } catch {
    return false;
  }
}
