/**
 * The hook through which code inside a bundle asks its loader (cached-bundle.ts) to write the
 * bundle's compile cache now: a worker thread is never told when it ends, so it asks after some
 * work. Outside a cached bundle (unit tests, the library) nothing is registered and it does nothing.
 */

/** The global the loader registers its save function under. */
export const SAVE_HOOK = Symbol.for("bylaw.saveCompileCache");

export function saveCompileCache(): void {
  const hook = (globalThis as Record<symbol, unknown>)[SAVE_HOOK];
  if (typeof hook === "function") (hook as () => void)();
}

/** The global the loader registers this build's cache folder under (unset: no cache, or not a bundle). */
export const BUILD_CACHE_DIR = Symbol.for("bylaw.buildCacheDir");

/**
 * This build's cache folder (build id, Node version, architecture), where other caches tied to the
 * exact code that runs (the parse cache) may live; undefined outside a cached bundle or with
 * BYLAW_COMPILE_CACHE=off.
 */
export function buildCacheDir(): string | undefined {
  const dir = (globalThis as Record<symbol, unknown>)[BUILD_CACHE_DIR];
  return typeof dir === "string" ? dir : undefined;
}
