/** One `---`-separated part of a YAML stream. */
export interface DocumentChunk {
  /** 0-based position among the file's documents, empty ones included. */
  readonly index: number;
  /** 1-based line of the chunk's first line in the whole text (of the separator, for a bad one). */
  readonly line: number;
  /** The chunk's text, separator lines excluded. */
  readonly text: string;
  /** True when the chunk holds only blank lines and comments. */
  readonly empty: boolean;
  /** Set when the chunk was opened by a malformed separator such as `--- foo`. */
  readonly error?: string;
}

/**
 * Split a YAML stream into documents the way Kubernetes' YAMLReader does (and so Kyverno's
 * CLI): a line that starts with `---` is a separator when only spaces or a comment follow; any
 * other text after `---` on that line is an error ("invalid YAML document separator"), which we
 * give to that one document instead of failing the file. Lines are never otherwise interpreted.
 *
 * Numbering follows the YAML stream: text before the first separator is a document only when it
 * has content (a leading comment header is not a document); every separator opens a document,
 * even an empty one.
 */
export function splitDocuments(text: string): DocumentChunk[] {
  const chunks: DocumentChunk[] = [];
  let start = 0;
  let startLine = 1;
  let hasContent = false;
  let pendingError: string | undefined;
  let leading = true;
  let lineNumber = 1;
  let pos = 0;

  const finish = (end: number): void => {
    if (!(leading && !hasContent && pendingError === undefined)) {
      const chunk = { index: chunks.length, line: startLine, text: text.slice(start, end), empty: !hasContent };
      chunks.push(pendingError === undefined ? chunk : { ...chunk, error: pendingError });
    }
    leading = false;
  };

  while (pos < text.length) {
    const newline = text.indexOf("\n", pos);
    const lineEnd = newline < 0 ? text.length : newline;
    const next = newline < 0 ? text.length : newline + 1;
    if (text.startsWith("---", pos)) {
      const rest = text.slice(pos + 3, lineEnd).trim();
      finish(pos);
      pendingError = rest === "" || rest.startsWith("#") ? undefined : `invalid YAML document separator: ${rest}`;
      start = next;
      // A bad separator's document is reported at the separator line itself.
      startLine = pendingError === undefined ? lineNumber + 1 : lineNumber;
      hasContent = false;
    } else if (!hasContent && lineHasContent(text, pos, lineEnd)) {
      hasContent = true;
    }
    pos = next;
    lineNumber++;
  }
  finish(text.length);
  return chunks;
}

/** A line that is neither blank nor a comment. */
function lineHasContent(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 13) continue;
    return c !== 35;
  }
  return false;
}
