/**
 * A floor for `bylaw test` over the corpus, run as its own process by bench/startup.ts: read and
 * parse every YAML/JSON file below a folder with Bylaw's own loader (the one `bylaw test` reads
 * suites with), and nothing else. Prints the number of documents.
 *
 * Usage: node dist/bench/read-corpus-yaml.js DIR
 */
import { loadPaths } from "../src/platform/files/index.js";

const dir = process.argv[2];
if (dir === undefined) {
  console.error("usage: node dist/bench/read-corpus-yaml.js DIR");
  process.exit(2);
}
const docs = await loadPaths([dir]);
console.log(`${docs.length} documents, ${docs.filter((d) => d.error !== undefined).length} with errors`);
