/** `-e/--exception FILE|DIR|-`: PolicyException documents read from files, folders or stdin. */
import { compileExceptionDocuments, type LoadedExceptions } from "../../../library/compile-exceptions.js";
import { loadPaths } from "../../../platform/files/index.js";
import type { Engine } from "../../../engine/index.js";

export async function loadExceptions(
  paths: readonly string[],
  stdin: () => Promise<string>,
  engine: Engine,
): Promise<LoadedExceptions> {
  return compileExceptionDocuments(await loadPaths(paths, { stdin }), engine, "--exception: ");
}
