export { loadPaths, STDIN_SOURCE } from "./load-paths.js";
export type { LoadPathsOptions } from "./load-paths.js";
export { listDocumentFiles, isDocumentFile } from "./list-document-files.js";
export { readTextFile } from "./read-text-file.js";
export { readStdin } from "./read-stdin.js";
export { writeFilesAtomically } from "./write-atomic.js";
