/**
 * A code example of README.md and the output it documents, found by their markers
 * (`<!-- readme-example: NAME -->` before the code block, `<!-- readme-example-output: NAME -->`
 * before the output block), and the example transpiled to JavaScript to run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

export interface ReadmeExample {
  /** The TypeScript code, as written in the README. */
  readonly source: string;
  /** The same, transpiled to an ES module. */
  readonly javascript: string;
  /** The output the README says it prints. */
  readonly output: string;
}

export function readmeExample(root: string, name: string): ReadmeExample {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const source = blockAfter(readme, `<!-- readme-example: ${name} -->`);
  const output = blockAfter(readme, `<!-- readme-example-output: ${name} -->`);
  const javascript = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  return { source, javascript, output };
}

function blockAfter(text: string, marker: string): string {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`README.md has no ${marker}`);
  const block = /```[a-z]*\n([\s\S]*?)\n```/.exec(text.slice(at + marker.length));
  if (block === null) throw new Error(`README.md has no code block after ${marker}`);
  return block[1] ?? "";
}
