export { loadPaths } from "./load-paths.js";

export { listDocumentFiles, isDocumentFile } from "./list-document-files.js";
export { readTextFile } from "./read-text-file.js";

export { writeFilesAtomically } from "./write-atomic.js";
