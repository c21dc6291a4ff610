/**
 * The `yaml` package as an alternative front end for the same Kubernetes semantics, used only by
 * the benchmark: it parses each document with the failsafe schema (every scalar a string, its
 * style kept) and feeds the nodes to the ValueBuilder that the js-yaml front end also uses.
 */
import { isAlias, isMap, isScalar, isSeq, parseDocument } from "yaml";
import type { JsonValue } from "../src/engine/index.js";
import { splitDocuments } from "../src/platform/yaml/split-documents.js";
import { DEFAULT_LIMITS } from "../src/platform/yaml/types.js";
import { ValueBuilder } from "../src/platform/yaml/value-builder.js";
import { textOf } from "../src/engine/index.js";

/** Values of every document (undefined when empty), or the string "error" where a document failed. */
export function parseWithYamlLibrary(text: string): Array<JsonValue | undefined> {
  return splitDocuments(text).map((chunk) => {
    if (chunk.error !== undefined) return "error";
    if (chunk.empty) return undefined;
    try {
      const doc = parseDocument(chunk.text, { schema: "failsafe", uniqueKeys: false, keepSourceTokens: false });
      if (doc.errors.length > 0) return "error";
      const builder = new ValueBuilder(DEFAULT_LIMITS.maxAliasNodes);
      feed(doc.contents, builder);
      const value = builder.result();
      return value === null ? undefined : value;
    } catch {
      return "error";
    }
  });
}

function feed(node: unknown, builder: ValueBuilder): void {
  const offset = (node as { range?: [number] | null } | null)?.range?.[0] ?? 0;
  if (node === null || node === undefined) {
    builder.scalar("", true, undefined, undefined, offset);
  } else if (isAlias(node)) {
    builder.alias(node.source, offset);
  } else if (isScalar(node)) {
    const text = node.value === null || node.value === undefined ? "" : textOf(node.value);
    builder.scalar(text, node.type === "PLAIN", node.tag, node.anchor, offset);
  } else if (isMap(node)) {
    builder.startMapping(node.anchor, offset);
    for (const pair of node.items) {
      feed(pair.key, builder);
      feed(pair.value, builder);
    }
    builder.end();
  } else if (isSeq(node)) {
    builder.startSequence(node.anchor, offset);
    for (const item of node.items) feed(item, builder);
    builder.end();
  }
}
