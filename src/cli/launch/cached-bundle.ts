/**
 * Run the bundled CLI's scripts (tools/bundle.mjs: esbuild's chunks, each converted to a CommonJS
 * script) through V8's code cache (docs/adr/0014-bundled-cli.md). The first run that needs a
 * chunk compiles it and, when the command is done, writes the compiled code V8 kept (the chunk's
 * top level and every function that ran) to a cache file; later runs hand that file to V8 instead
 * of parsing the chunk again. Works on every Node from 20 (vm.Script's cachedData): Node's own
 * compile cache covers ES modules only, and only from Node 22.
 *
 * Safe when stale: the cache files of one build sit in a folder named for the build id (a hash of
 * every chunk's content, written by tools/bundle.mjs), the Node version and the CPU architecture,
 * and each file is named for its chunk and the chunk's size and modification time (V8 itself checks
 * only the source's length: a cache made for other code of the same length would run that code);
 * V8 checks its own version and flags and rejects a file that does not fit (the chunk then compiles
 * as without a cache, and the cache is rewritten). A cache file is used only when it belongs to this user and
 * no one else may write it. Every cache error is ignored: the cache can make a run faster, never
 * fail one. Folders of other builds untouched for a day are removed when a cache is written.
 *
 * BYLAW_COMPILE_CACHE=off turns it off; BYLAW_COMPILE_CACHE=DIR puts it in DIR (default
 * $XDG_CACHE_HOME/bylaw/compile-cache, else ~/.cache/bylaw/compile-cache).
 */
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { readOwnFile } from "../../platform/files/read-own-file.js";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Script } from "node:vm";
import { BUILD_CACHE_DIR, SAVE_HOOK } from "./save-compile-cache.js";

const COMPILE_CACHE_ENV = "BYLAW_COMPILE_CACHE";
/** Cache folders of other builds are removed once untouched this long. */
const STALE_BUILD_MS = 24 * 3600 * 1000;

/** How a script was compiled: from the cache, without one (none yet, or V8 refused it), or with caching off. */
type CacheUse = "used" | "absent" | "rejected" | "off";

interface ScriptsOptions {
  /** The folder of the CommonJS scripts. */
  readonly dir: string;
  /** The folder the scripts' `import.meta.url` names (where the worker entries are). */
  readonly publicDir: string;
  /** The build id (a hash of every script), tools/bundle.mjs. */
  readonly buildId: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The cache folder, or undefined when BYLAW_COMPILE_CACHE turns caching off. */
export function compileCacheDir(
  env: Readonly<Record<string, string | undefined>>,
  home: () => string = homedir,
): string | undefined {
  const set = env[COMPILE_CACHE_ENV];
  if (set !== undefined && set !== "") return /^(off|0|false|no)$/i.test(set) ? undefined : resolve(set);
  const xdg = env["XDG_CACHE_HOME"];
  const base = xdg !== undefined && xdg !== "" ? xdg : join(home(), ".cache");
  return join(base, "bylaw", "compile-cache");
}

interface Loaded {
  readonly module: { exports: Record<string, unknown> };
  readonly script: Script;
  readonly cacheFile: string | undefined;
  cache: CacheUse;
}

/** The scripts of one bundle folder, each loaded once (a CommonJS-like registry) through the code cache. */
export class CachedScripts {
  readonly #options: ScriptsOptions;
  readonly #loaded = new Map<string, Loaded>();
  readonly #cacheDir: string | undefined;
  readonly #nodeRequire: NodeJS.Require;

  constructor(options: ScriptsOptions) {
    this.#options = options;
    let root: string | undefined;
    try {
      root = compileCacheDir(options.env ?? process.env);
    } catch {
      root = undefined; // no home folder: no cache
    }
    this.#cacheDir =
      root === undefined || !/^[0-9a-f]{16}$/.test(options.buildId)
        ? undefined
        : join(root, `${options.buildId}.${process.version}.${process.arch}`);
    this.#nodeRequire = createRequire(join(options.dir, "index.js"));
    (globalThis as Record<symbol, unknown>)[SAVE_HOOK] = () => this.saveCaches();
    (globalThis as Record<symbol, unknown>)[BUILD_CACHE_DIR] = this.#cacheDir;
  }

  /** The exports of a script of the folder ("./name.js"), or of a Node built-in module. */
  require(id: string): Record<string, unknown> {
    if (!id.startsWith("./")) return this.#nodeRequire(id) as Record<string, unknown>;
    const file = join(this.#options.dir, id.slice(2));
    const done = this.#loaded.get(file);
    if (done !== undefined) return done.module.exports;
    return this.#load(file);
  }

  /** How each script loaded so far was compiled, by file name. */
  cacheUse(): Record<string, CacheUse> {
    return Object.fromEntries([...this.#loaded].map(([file, l]) => [basename(file), l.cache]));
  }

  /** Write the cache of every script this run had to compile; never throws. */
  saveCaches(): void {
    const dir = this.#cacheDir;
    if (dir === undefined) return;
    const todo = [...this.#loaded.values()].filter(
      (l) => l.cacheFile !== undefined && (l.cache === "absent" || l.cache === "rejected"),
    );
    if (todo.length === 0) return;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      for (const l of todo) {
        l.cache = "used";
        const file = l.cacheFile ?? "";
        const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
        // A whole file or none for a concurrent run: write aside, then rename over.
        writeFileSync(tmp, l.script.createCachedData(), { mode: 0o600 });
        renameSync(tmp, file);
      }
      removeStaleBuilds(dirname(dir), basename(dir));
    } catch {
      // best effort: an unwritable cache folder only means the next run compiles again
    }
  }

  #load(file: string): Record<string, unknown> {
    const fd = openSync(file, "r");
    let source: string;
    let size: number;
    let mtimeMs: number;
    try {
      ({ size, mtimeMs } = fstatSync(fd));
      source = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
    const cacheFile =
      this.#cacheDir === undefined
        ? undefined
        : join(this.#cacheDir, `${basename(file)}.${size}.${Math.trunc(mtimeMs)}.v8cache`);
    const cachedData = cacheFile === undefined ? undefined : readOwnFile(cacheFile);
    const script = new Script(
      `(function (exports, require, module, __filename, __dirname, __bylaw_import_meta_url) {${source}\n})`,
      {
        filename: file,
        ...(cachedData !== undefined ? { cachedData } : {}),
      },
    );
    const cache: CacheUse =
      cacheFile === undefined
        ? "off"
        : cachedData === undefined
          ? "absent"
          : script.cachedDataRejected === true
            ? "rejected"
            : "used";
    const module = { exports: {} as Record<string, unknown> };
    this.#loaded.set(file, { module, script, cacheFile, cache });
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    const url = pathToFileURL(join(this.#options.publicDir, basename(file))).href;
    wrapper(module.exports, (id: string) => this.require(id), module, file, dirname(file), url);
    return module.exports;
  }
}

/** A build's cache folder: build id, Node version, architecture (nothing else in the folder is touched). */
const BUILD_FOLDER = /^[0-9a-f]{16}\.v\d+\.\d+\.\d+\.[a-z0-9]+$/;

/** Remove the cache folders of other builds that no run has written to for a day. */
function removeStaleBuilds(root: string, current: string): void {
  const now = Date.now();
  for (const name of readdirSync(root)) {
    if (name === current || !BUILD_FOLDER.test(name)) continue;
    const path = join(root, name);
    try {
      if (now - statSync(path).mtimeMs > STALE_BUILD_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // another run removed it first
    }
  }
}
