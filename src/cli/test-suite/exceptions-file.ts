/**
 * A test's `exceptions:` files (paths relative to the test file). A file that cannot be read or
 * an invalid exception fails the suite with the file, document and field.
 */
import { resolve } from "node:path";
import { compileExceptionDocuments, type LoadedExceptions } from "../../library/compile-exceptions.js";
import { loadPaths } from "../../platform/files/index.js";
import type { Engine } from "../../engine/index.js";

type SuiteExceptions = LoadedExceptions;

export async function loadSuiteExceptions(
  dir: string,
  files: readonly string[],
  engine: Engine,
): Promise<SuiteExceptions> {
  if (files.length === 0) return { exceptions: [], errors: [], warnings: [] };
  return compileExceptionDocuments(await loadPaths(files.map((f) => resolve(dir, f))), engine);
}
