/**
 * The import graph of a source tree, read with TypeScript's own pre-processor: every `import`,
 * `import type`, `export … from` and `import()` of a relative module, resolved to the file it names
 * (NodeNext: `./x.js` is `./x.ts`). Package imports are left out. Type-only imports count: they tie
 * the files' meaning together as much as value imports do.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** file (repo-relative, forward slashes) → the files it imports */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [full] : [];
  });
}

export function importGraph(root: string, dir: string): ImportGraph {
  const name = (file: string): string => relative(root, file).split("\\").join("/");
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(join(root, dir))) {
    const imports = ts.preProcessFile(readFileSync(file, "utf8"), true, true).importedFiles;
    const targets = imports
      .map((f) => f.fileName)
      .filter((spec) => spec.startsWith("."))
      .map((spec) => name(resolve(dirname(file), spec.replace(/\.js$/, ".ts"))));
    graph.set(name(file), [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan), each sorted. */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** The folder a file sits in. */
export function folderOf(file: string): string {
  return file.slice(0, file.lastIndexOf("/"));
}

/** Every file `from` reaches through imports, itself included. */
export function reachable(graph: ImportGraph, from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  for (let f = todo.pop(); f !== undefined; f = todo.pop()) {
    if (seen.has(f)) continue;
    seen.add(f);
    todo.push(...(graph.get(f) ?? []));
  }
  return seen;
}
