/**
 * A code example of a Markdown page (the library example lives in docs/library.md) and the output it
 * documents, found by their markers
 * (`<!-- readme-example: NAME -->` before the code block, `<!-- readme-example-output: NAME -->`
 * before the output block), and the example transpiled to JavaScript to run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

export interface ReadmeExample {
  /** The TypeScript code, as written on the page. */
  readonly source: string;
  /** The same, transpiled to an ES module. */
  readonly javascript: string;
  /** The output the page says it prints. */
  readonly output: string;
}

/** The example NAME of the page at `page`, relative to `root` (the library example is in docs/library.md). */
export function readmeExample(root: string, name: string, page = "docs/library.md"): ReadmeExample {
  const text = readFileSync(join(root, page), "utf8");
  const source = blockAfter(text, page, `<!-- readme-example: ${name} -->`);
  const output = blockAfter(text, page, `<!-- readme-example-output: ${name} -->`);
  const javascript = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  return { source, javascript, output };
}

function blockAfter(text: string, page: string, marker: string): string {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${page} has no ${marker}`);
  const block = /```[a-z]*\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
  if (block === null) throw new Error(`${page} has no code block after ${marker}`);
  return block[1] ?? "";
}
