import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { loadPaths } from "./load-paths.js";

let root = "";

before(async () => {
  root = await mkdtemp(join(tmpdir(), "bylaw-load-paths-"));
  await mkdir(join(root, "policies", "a", "deep"), { recursive: true });
  await writeFile(join(root, "policies", "b.yaml"), "kind: B\n---\nkind: B2\n");
  await writeFile(join(root, "policies", "a.yaml"), "kind: A\n");
  await writeFile(join(root, "policies", "a", "z.yml"), "kind: AZ\n");
  await writeFile(join(root, "policies", "a", "m.json"), '{"kind": "AM"}');
  await writeFile(join(root, "policies", "a", "deep", "x.yaml"), "kind: ADX\n");
  await writeFile(join(root, "policies", "notes.txt"), "kind: ignored\n");
  await writeFile(join(root, "policies", "README.md"), "# ignored\n");
  await writeFile(join(root, "resource.txt"), "kind: Explicit\n");
  await symlink(join(root, "policies"), join(root, "policies", "a", "loop"));
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

const kinds = (docs: Awaited<ReturnType<typeof loadPaths>>): unknown[] =>
  docs.map((d) => (d.value as { kind?: unknown } | undefined)?.kind ?? d.error);

describe("loadPaths", () => {
  it("reads a directory recursively in sorted order, only .yaml/.yml/.json, without following directory links", async () => {
    const docs = await loadPaths([join(root, "policies")]);
    assert.deepEqual(kinds(docs), ["ADX", "AM", "AZ", "A", "B", "B2"]);
    assert.deepEqual(
      docs.map((d) => [d.source.slice(root.length + 1), d.index]),
      [
        ["policies/a/deep/x.yaml", 0],
        ["policies/a/m.json", 0],
        ["policies/a/z.yml", 0],
        ["policies/a.yaml", 0],
        ["policies/b.yaml", 0],
        ["policies/b.yaml", 1],
      ],
    );
  });

  it("reads a file named explicitly whatever its extension, and keeps the order of the paths", async () => {
    const docs = await loadPaths([join(root, "resource.txt"), join(root, "policies", "a.yaml")]);
    assert.deepEqual(kinds(docs), ["Explicit", "A"]);
  });

  it("turns a missing path into a document with an error, and goes on", async () => {
    const missing = join(root, "nope.yaml");
    const docs = await loadPaths([missing, join(root, "policies", "a.yaml")]);
    assert.deepEqual(docs[0], { source: missing, index: 0, error: `no such file or directory: ${missing}` });
    assert.deepEqual(docs[1]?.value, { kind: "A" });
  });

  it("reads - from standard input once, as <stdin>", async () => {
    let reads = 0;
    const stdin = async (): Promise<string> => {
      reads++;
      return "kind: FromStdin\n---\nkind: Two\n";
    };
    const docs = await loadPaths(["-", "-"], { stdin });
    assert.equal(reads, 1);
    assert.deepEqual(
      docs.map((d) => [d.source, d.index, d.value]),
      [
        ["<stdin>", 0, { kind: "FromStdin" }],
        ["<stdin>", 1, { kind: "Two" }],
      ],
    );
  });

  it("reports a failing stdin reader as an error document", async () => {
    const docs = await loadPaths(["-"], { stdin: () => Promise.reject(new Error("closed")) });
    assert.deepEqual(docs, [{ source: "<stdin>", index: 0, error: "cannot read standard input: closed" }]);
  });

  it("refuses a file over the size cap before reading it", async () => {
    const file = join(root, "policies", "b.yaml");
    const docs = await loadPaths([file], { limits: { maxBytes: 4 } });
    assert.match(docs[0]?.error ?? "", /file is too large \(21 bytes; the limit is 4\)/);
  });
});
