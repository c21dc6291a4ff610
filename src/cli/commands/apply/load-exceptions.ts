/** `-e/--exception FILE|DIR|-`: PolicyException documents read from files, folders or stdin. */
import { compileExceptionDocuments, type LoadedExceptions } from "../../../library/compile-exceptions.js";
import { loadPaths } from "../../../platform/files/index.js";

export type { LoadedExceptions };

export async function loadExceptions(paths: readonly string[], stdin: () => Promise<string>): Promise<LoadedExceptions> {
  return compileExceptionDocuments(await loadPaths(paths, { stdin }), "--exception: ");
}
