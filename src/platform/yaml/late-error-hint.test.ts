/** A YAML error reported on the line after the mistake names the line to fix. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseDocuments } from "./parse-documents.js";

function errorOf(text: string): string {
  return parseDocuments(text, "p.yaml")
    .map((d) => d.error ?? "")
    .join("");
}

describe("YAML errors that a parser reports one line late", () => {
  test("a key without its colon: the reported line is the next one, the hint names the line to fix", () => {
    const e = errorOf("kind: ClusterPolicy\nmetadata:\n  name x\n  labels: {}\nspec: {}\n");
    assert.match(
      e,
      /: line 3 \("name x"\) has no "key: value" colon: bad indentation of a mapping entry at line 4, column \d+$/,
    );
  });
  test("a quote left open", () => {
    const e = errorOf('kind: ClusterPolicy\nmetadata:\n  name: "x\nspec: {}\n');
    assert.match(e, /: line 3 \("name: \\"x"\) opens a quote it does not close: .* at line 4, column 1$/);
  });
  test("a flow mapping left open", () => {
    const e = errorOf("kind: ClusterPolicy\nmetadata: {name: x\nspec: {}\n");
    assert.match(e, /: line 2 \("metadata: \{name: x"\) opens a "\{" it does not close: .* at line 3, column 1$/);
  });
  test("lines are counted from the file, past comments and earlier documents", () => {
    const e = errorOf("a: 1\n---\n# note\nmetadata:\n  name x\n\n  labels: {}\n");
    assert.match(e, /document 2 \(line 3\): line 5 \("name x"\) has no "key: value" colon: .* at line 7, column \d+$/);
  });
  test("an error on the line to fix gets no hint", () => {
    const e = errorOf("metadata:\n  name: x\n   bad: 1\n");
    assert.match(e, /\(line 1\): bad indentation of a mapping entry at line 3, column \d+$/);
  });
  test("text of a block scalar is not taken for a key without a colon", () => {
    const e = errorOf("spec:\n  message: |\n    hello world\n bad: 1\n");
    assert.doesNotMatch(e, /has no "key: value" colon/);
  });
});
