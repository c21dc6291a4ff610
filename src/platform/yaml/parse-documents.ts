import { parseEvents, YAMLException } from "js-yaml";
import { buildFromEvents } from "./js-yaml-events.js";
import { lateErrorHint } from "./late-error-hint.js";
import { splitDocuments, type DocumentChunk } from "./split-documents.js";
import { DEFAULT_LIMITS, type LoadedDocument, type ParseLimits } from "./types.js";
import { BuildError, ValueBuilder } from "./value-builder.js";

/**
 * Read every document of a YAML (or JSON) text the way Kubernetes reads manifests. Each
 * document gets its own entry, in order: empty ones (only blanks and comments, or `null`) have
 * no value and no error; a broken one has an error and does not stop the others.
 *
 * Semantics (sigs.k8s.io/yaml over go-yaml v2): YAML 1.1 booleans (`yes/no/on/off/y/n` in their
 * lower, Capitalised and UPPER forms), `0777` octal and `0x1F` hex ints, `~`/`null` null,
 * timestamps kept as strings, non-string keys turned into strings, a repeated key keeps its last
 * value (non-strict decoding, as `kubectl` and the Kyverno CLI load resources), anchors, aliases
 * and `<<` merge keys. See value-builder.ts for the details.
 */
export function parseDocuments(text: string, source: string, limits: ParseLimits = {}): LoadedDocument[] {
  const maxBytes = limits.maxBytes ?? DEFAULT_LIMITS.maxBytes;
  if (text.length > maxBytes) return [tooLarge(source, text.length, maxBytes)];
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const maxDepth = limits.maxDepth ?? DEFAULT_LIMITS.maxDepth;
  const maxAliasNodes = limits.maxAliasNodes ?? DEFAULT_LIMITS.maxAliasNodes;
  return splitDocuments(body).map((chunk) => parseChunk(chunk, source, maxDepth, maxAliasNodes));
}

export function tooLarge(source: string, size: number, limit: number): LoadedDocument {
  return {
    source,
    index: 0,
    line: 1,
    error: `${source}: input is too large (${size} characters; the limit is ${limit})`,
  };
}

function parseChunk(chunk: DocumentChunk, source: string, maxDepth: number, maxAliasNodes: number): LoadedDocument {
  const base = { source, index: chunk.index, line: chunk.line };
  const where = `${source}: document ${chunk.index + 1} (line ${chunk.line})`;
  if (chunk.error !== undefined) return { ...base, error: `${where}: ${chunk.error}` };
  if (chunk.empty) return base;
  try {
    const events = parseEvents(chunk.text, { maxDepth });
    const builder = new ValueBuilder(maxAliasNodes);
    buildFromEvents(events, chunk.text, builder);
    const value = builder.result();
    return value === undefined || value === null ? base : { ...base, value };
  } catch (e) {
    return { ...base, error: `${where}: ${describeError(e, chunk)}` };
  }
}

function describeError(e: unknown, chunk: DocumentChunk): string {
  if (e instanceof YAMLException) {
    if (e.mark === undefined) return e.reason;
    const hint = lateErrorHint(chunk.text, e.mark.line, chunk.line);
    const at = `${e.reason} at line ${chunk.line + e.mark.line}, column ${e.mark.column + 1}`;
    return hint === undefined ? at : `${hint}: ${at}`;
  }
  if (e instanceof BuildError) {
    const { line, column } = lineAndColumn(chunk.text, e.offset);
    return `${e.message} at line ${chunk.line + line}, column ${column + 1}`;
  }
  if (e instanceof RangeError) return "the document is nested too deeply";
  return e instanceof Error ? e.message : String(e);
}

/** 0-based line and column of an offset. */
function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 0;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart };
}
