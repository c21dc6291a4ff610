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

/**
 * `--exceptions-with-resources` (kyverno apply's flag): the PolicyExceptions among the -r documents.
 * The other documents are resources (read errors are reported when they load as resources); stdin
 * ("-") is read once, as resources, so it is left out here.
 */
export async function exceptionsAmongResources(paths: readonly string[], engine: Engine): Promise<LoadedExceptions> {
  const docs = await loadPaths(
    paths.filter((p) => p !== "-"),
    { stdin: () => Promise.resolve("") },
  );
  const exceptions = docs.filter((d) => d.value !== undefined && engine.classify(d.value).role === "exception");
  return compileExceptionDocuments(exceptions, engine, "--exceptions-with-resources: ");
}
