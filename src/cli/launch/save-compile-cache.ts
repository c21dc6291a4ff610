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
