import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { splitDocuments } from "./split-documents.js";

const summary = (text: string) =>
  splitDocuments(text).map((c) => ({
    index: c.index,
    line: c.line,
    empty: c.empty,
    ...(c.error ? { error: c.error } : {}),
  }));

describe("splitDocuments", () => {
  it("splits on --- lines and numbers documents from 0 with their first line", () => {
    assert.deepEqual(summary("a: 1\n---\nb: 2\n--- # note\nc: 3\n"), [
      { index: 0, line: 1, empty: false },
      { index: 1, line: 3, empty: false },
      { index: 2, line: 5, empty: false },
    ]);
  });

  it("does not count a leading comment header or a leading ---, but counts empty documents between separators", () => {
    assert.deepEqual(summary("# header\n\n---\na: 1\n---\n# nothing\n---\n---\nb: 2\n"), [
      { index: 0, line: 4, empty: false },
      { index: 1, line: 6, empty: true },
      { index: 2, line: 8, empty: true },
      { index: 3, line: 9, empty: false },
    ]);
    assert.deepEqual(summary("---\na: 1\n"), [{ index: 0, line: 2, empty: false }]);
  });

  it("keeps the separator out of the document text and handles CRLF", () => {
    const chunks = splitDocuments("a: 1\r\n---\r\nb: 2\r\n");
    assert.deepEqual(
      chunks.map((c) => c.text),
      ["a: 1\r\n", "b: 2\r\n"],
    );
  });

  it("marks a separator followed by content as an error for that document only", () => {
    assert.deepEqual(summary("a: 1\n--- {b: 2}\n---\nc: 3\n"), [
      { index: 0, line: 1, empty: false },
      { index: 1, line: 2, empty: true, error: "invalid YAML document separator: {b: 2}" },
      { index: 2, line: 4, empty: false },
    ]);
  });

  it("gives nothing for empty or comment-only text", () => {
    assert.deepEqual(splitDocuments(""), []);
    assert.deepEqual(splitDocuments("# just a comment\n\n"), []);
  });
});
