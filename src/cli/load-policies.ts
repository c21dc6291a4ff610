/**
 * Load policy documents from files and directories (or standard input) and compile them; what a
 * policy path may hold, and how each problem is reported, is library/compile-documents.ts.
 */
import type { Engine } from "../engine/index.js";
import { compileDocuments, type LoadedPolicies } from "../library/compile-documents.js";
import { loadPaths } from "../platform/files/index.js";

export async function loadPolicies(
  paths: readonly string[],
  engine: Engine,
  stdin?: () => Promise<string>,
): Promise<LoadedPolicies> {
  const docs = await loadPaths([...paths], stdin ? { stdin } : {});
  return compileDocuments(docs, engine);
}
