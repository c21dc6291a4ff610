export { parseDocuments } from "./parse-documents.js";
export { parseJsonDocument } from "./parse-json-document.js";

export type { LoadedDocument, ParseLimits } from "./types.js";
export { writeGoYaml, writeGoYamlMap, writeKubeYaml, writeYaml, writeYamlStream } from "./write-yaml.js";
