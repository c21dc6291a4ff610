/**
 * The parse cache: what a file's YAML/JSON text parsed to, kept on disk so that the next run over
 * unchanged files does not parse them again (parsing is the largest single cost of `bylaw test` over
 * many suites: docs/adr/0014-bundled-cli.md). It lives in the folder of the build's compile cache, so
 * it is tied to the exact code that parsed (another build, or Node version, never reads it), is
 * turned off by the same BYLAW_COMPILE_CACHE=off, and is removed with it.
 *
 * One pack file per set of paths a run was given (the caller names it): a map from a SHA-256 of a
 * file's path and whole text to its documents as loadDocumentFile gives them (v8.serialize). Any
 * change to a file's content is a miss: no timestamps are trusted. One file, read once and written
 * once, because a first run writing an entry per file spent more time creating files than parsing
 * them. The pack is read only when it is this user's and no one else may write it
 * (read-own-file.ts), and is rewritten only when the run parsed something: it then holds exactly
 * the entries the run used. Every cache error is ignored: the cache can make a run faster, never
 * fail or change one. Files over MAX_TEXT and entries over MAX_ENTRY_BYTES are not cached, a pack
 * over MAX_BYTES is not written, and a folder keeps MAX_PACKS packs, the most recently written.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { deserialize, serialize } from "node:v8";
import type { LoadedDocument } from "../yaml/types.js";
import { parseDocumentText } from "./load-document-file.js";
import type { ParsedFiles } from "./parsed-files-hook.js";
import { readOwnFile } from "./read-own-file.js";
import { readTextFileSync } from "./read-text-file.js";

/** Texts longer than this (characters) are parsed every time. */
export const MAX_TEXT = 1024 * 1024;
/** An entry larger than this (bytes, serialized) is not kept. */
const MAX_ENTRY_BYTES = 2 * 1024 * 1024;
/** A pack larger than this (bytes) is not written. */
const MAX_BYTES = 256 * 1024 * 1024;
/** Packs one folder keeps. */
const MAX_PACKS = 32;

/** The cache's bounds (the constants above by default; tests set small ones). */
interface ParseCacheLimits {
  readonly maxBytes?: number;
  readonly maxEntryBytes?: number;
  readonly maxPacks?: number;
}

/** What a worker thread's cache used and parsed, for the main thread's cache to keep (`adopt`). */
export interface ParseCacheReport {
  readonly used: readonly string[];
  readonly fresh: readonly (readonly [string, Uint8Array])[];
}

/** The pack's file name for the paths a run was given (any order). */
export function packName(paths: readonly string[]): string {
  return `${createHash("sha256")
    .update(JSON.stringify([...paths].sort()))
    .digest("hex")
    .slice(0, 32)}.pack`;
}

export class ParseCache implements ParsedFiles {
  readonly #pack: string;
  readonly #limits: Required<ParseCacheLimits>;
  /** The pack as read, once. */
  #stored: Map<string, Uint8Array> | undefined;
  /** Entries this run used (found or parsed): what a rewritten pack holds. */
  readonly #used = new Map<string, Uint8Array>();
  /** Entries parsed since the last report(). */
  #fresh = new Map<string, Uint8Array>();
  #dirty = false;
  #hits = 0;
  #misses = 0;

  /** `pack`: the pack file (packName in the build's cache folder). */
  constructor(pack: string, limits: ParseCacheLimits = {}) {
    this.#pack = pack;
    this.#limits = {
      maxBytes: limits.maxBytes ?? MAX_BYTES,
      maxEntryBytes: limits.maxEntryBytes ?? MAX_ENTRY_BYTES,
      maxPacks: limits.maxPacks ?? MAX_PACKS,
    };
  }

  load(path: string): LoadedDocument[] | undefined {
    const text = readTextFileSync(path);
    // A file that cannot be read is loadDocumentFile's to report.
    if (!text.ok || text.value.length > MAX_TEXT) return undefined;
    const key = createHash("sha256").update(path).update("\0").update(text.value).digest("hex");
    const bytes = this.#used.get(key) ?? this.#storedEntries().get(key);
    if (bytes !== undefined) {
      try {
        const documents: unknown = deserialize(bytes);
        if (Array.isArray(documents)) {
          this.#hits++;
          this.#used.set(key, bytes);
          return documents as LoadedDocument[];
        }
      } catch {
        // not a cache entry after all: parse
      }
    }
    this.#misses++;
    const documents = parseDocumentText(text.value, path);
    // Serialized now: the caller may change what it is given.
    const fresh = serialize(documents);
    if (fresh.length <= this.#limits.maxEntryBytes) {
      this.#used.set(key, fresh);
      this.#fresh.set(key, fresh);
      this.#dirty = true;
    }
    return documents;
  }

  /** Files found in the cache, and files parsed, so far. */
  get counts(): { readonly hits: number; readonly misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  /** What this cache used and parsed since the last report (a worker thread's, for the main thread's `adopt`). */
  report(): ParseCacheReport {
    const out = { used: [...this.#used.keys()], fresh: [...this.#fresh] };
    this.#used.clear();
    this.#fresh = new Map();
    return out;
  }

  /** Keep what another thread's cache over the same pack used and parsed. */
  adopt(report: ParseCacheReport): void {
    for (const [key, bytes] of report.fresh) {
      this.#used.set(key, bytes);
      this.#dirty = true;
    }
    for (const key of report.used) {
      const bytes = this.#used.get(key) ?? this.#storedEntries().get(key);
      if (bytes !== undefined) this.#used.set(key, bytes);
    }
  }

  /** Rewrite the pack with the entries this run used, if it parsed anything; never throws. */
  save(): void {
    if (!this.#dirty) return;
    this.#dirty = false;
    try {
      const bytes = serialize(this.#used);
      if (bytes.length > this.#limits.maxBytes) return;
      const dir = dirname(this.#pack);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const tmp = `${this.#pack}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      writeFileSync(tmp, bytes, { mode: 0o600 });
      renameSync(tmp, this.#pack);
      prunePacks(dir, this.#limits.maxPacks);
    } catch {
      // a cache that cannot be written is no cache
    }
  }

  #storedEntries(): Map<string, Uint8Array> {
    if (this.#stored === undefined) {
      this.#stored = new Map();
      const bytes = readOwnFile(this.#pack);
      if (bytes !== undefined) {
        try {
          const value: unknown = deserialize(bytes);
          if (value instanceof Map) this.#stored = value as Map<string, Uint8Array>;
        } catch {
          // not a pack: an empty cache
        }
      }
    }
    return this.#stored;
  }
}

/** Keep the `keep` packs of `dir` written last. */
function prunePacks(dir: string, keep: number): void {
  const packs = readdirSync(dir)
    .filter((n) => n.endsWith(".pack"))
    .map((n) => {
      const path = join(dir, n);
      try {
        return { path, at: statSync(path).mtimeMs };
      } catch {
        return { path, at: 0 };
      }
    })
    .sort((a, b) => b.at - a.at);
  for (const p of packs.slice(keep)) rmSync(p.path, { force: true });
}
