/** The parse cache gives exactly what parsing gives, misses on any change of text or path, and trusts only this user's pack. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { tempTree } from "../../../test/support/temp-dir.js";
import type { JsonObject } from "../../engine/index.js";
import { loadDocumentFile } from "./load-document-file.js";
import { loadPaths } from "./load-paths.js";
import { MAX_TEXT, packName, ParseCache } from "./parse-cache.js";
import { useParsedFiles } from "./parsed-files-hook.js";

const texts = {
  "policy.yaml":
    "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\n---\n# empty\n---\nkind: Pod\nmetadata:\n  labels: {on: yes, mode: 0755}\n",
  "broken.yaml": "a: [1, 2\nb: {\n",
  "data.json": '{"__proto__": {"polluted": true}, "n": 1e400, "list": [1, "two"]}',
  "aliases.yml": "base: &b {x: 1}\nthis:\n  <<: *b\n  y: 2\n",
};

function setUp(): { root: string; files: string[]; dir: string; pack: string } {
  const root = tempTree(texts);
  const dir = join(mkdtempSync(join(tmpdir(), "bylaw-parse-cache-")), "parse");
  return { root, files: Object.keys(texts).map((f) => join(root, f)), dir, pack: join(dir, packName([root])) };
}

/** One run: a cache over `pack` loads `files`, then saves. */
function run(pack: string, files: readonly string[]): ParseCache {
  const cache = new ParseCache(pack);
  for (const f of files) cache.load(f);
  cache.save();
  return cache;
}

describe("ParseCache", () => {
  test("a second run reads from the pack exactly what the first parsed: documents, errors, JSON, aliases", () => {
    const { files, dir, pack } = setUp();
    const first = new ParseCache(pack);
    for (const f of files) assert.deepEqual(first.load(f), loadDocumentFile(f), f);
    assert.deepEqual(first.counts, { hits: 0, misses: files.length });
    first.save();
    assert.deepEqual(readdirSync(dir), [basename(pack)], "one pack file");
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(pack).mode & 0o777, 0o600);

    const second = new ParseCache(pack);
    for (const f of files) assert.deepEqual(second.load(f), loadDocumentFile(f), f);
    assert.deepEqual(second.counts, { hits: files.length, misses: 0 });
  });

  test("a run that parsed nothing does not rewrite the pack", () => {
    const { files, pack } = setUp();
    run(pack, files);
    utimesSync(pack, 1, 1);
    run(pack, files);
    assert.equal(statSync(pack).mtimeMs, 1000, "untouched");
  });

  test("a file whose text changed (same size, same path) is parsed again: no timestamp is trusted", () => {
    const { files, pack } = setUp();
    const file = files[0] ?? "";
    run(pack, [file]);
    writeFileSync(file, texts["policy.yaml"].replace("name: p", "name: q"));
    const second = new ParseCache(pack);
    const docs = second.load(file);
    assert.equal(((docs?.[0]?.value as JsonObject)["metadata"] as JsonObject)["name"], "q");
    assert.deepEqual(second.counts, { hits: 0, misses: 1 });
  });

  test("the same text at another path is another entry (the documents and their errors name the path)", () => {
    const { root, pack } = setUp();
    const a = join(root, "broken.yaml");
    const b = join(root, "copy-of-broken.yaml");
    writeFileSync(b, texts["broken.yaml"]);
    run(pack, [a]);
    const again = new ParseCache(pack);
    const docs = again.load(b);
    assert.deepEqual(docs, loadDocumentFile(b));
    assert.match(docs?.[0]?.error ?? "", /copy-of-broken\.yaml/);
    assert.equal(again.counts.hits, 0);
  });

  test("a pack others may write, or one that is not a pack, is not read", () => {
    const { files, pack } = setUp();
    run(pack, files);
    chmodSync(pack, 0o666);
    const writable = new ParseCache(pack);
    for (const f of files) assert.deepEqual(writable.load(f), loadDocumentFile(f), f);
    assert.deepEqual(writable.counts, { hits: 0, misses: files.length });
    writeFileSync(pack, "not v8 serialized data", { mode: 0o600 });
    chmodSync(pack, 0o600);
    const corrupt = new ParseCache(pack);
    for (const f of files) assert.deepEqual(corrupt.load(f), loadDocumentFile(f), f);
    assert.deepEqual(corrupt.counts, { hits: 0, misses: files.length });
  });

  test("what a caller changes in the documents it was given is not what the cache keeps", () => {
    const { files, pack } = setUp();
    const file = files[0] ?? "";
    const first = new ParseCache(pack);
    const docs = first.load(file);
    ((docs?.[0]?.value as JsonObject)["metadata"] as JsonObject)["name"] = "changed";
    first.save();
    assert.deepEqual(new ParseCache(pack).load(file), loadDocumentFile(file));
  });

  test("a file it cannot read, or a text over MAX_TEXT, is left to the caller; a folder it cannot write is no error", () => {
    const { root, pack } = setUp();
    const cache = new ParseCache(pack);
    assert.equal(cache.load(join(root, "missing.yaml")), undefined);
    const big = join(root, "big.yaml");
    writeFileSync(big, `a: "${"x".repeat(MAX_TEXT)}"\n`);
    assert.equal(cache.load(big), undefined);
    const blocked = new ParseCache(join(root, "policy.yaml", "parse", "x.pack"));
    assert.ok(blocked.load(join(root, "policy.yaml")) !== undefined);
    assert.doesNotThrow(() => blocked.save());
  });

  test("a worker's cache reports what it used and parsed, and the main thread's pack keeps it", () => {
    const { files, pack } = setUp();
    const [a = "", b = "", c = ""] = files;
    run(pack, [a, b]);
    const main = new ParseCache(pack);
    const worker = new ParseCache(pack);
    main.load(a);
    worker.load(b); // found in the pack
    worker.load(c); // parsed
    main.adopt(worker.report());
    main.save();
    const next = new ParseCache(pack);
    for (const f of [a, b, c]) assert.deepEqual(next.load(f), loadDocumentFile(f));
    assert.deepEqual(next.counts, { hits: 3, misses: 0 });
  });
});

describe("ParseCache bounds", () => {
  test("a rewritten pack holds only what the run used", () => {
    const { files, pack } = setUp();
    run(pack, files);
    const [a = "", b = ""] = files;
    writeFileSync(b, texts["broken.yaml"].replace("1, 2", "1, 3"));
    run(pack, [a, b]); // b parsed again: the pack is rewritten with a and the new b
    const next = new ParseCache(pack);
    for (const f of files) next.load(f);
    assert.deepEqual(next.counts, { hits: 2, misses: files.length - 2 });
  });

  test("an entry over its size is parsed each time and kept out; a pack over its size is not written; a folder keeps its newest packs", () => {
    const { root, files, dir } = setUp();
    const small = new ParseCache(join(dir, "a.pack"), { maxEntryBytes: 16 });
    assert.deepEqual(small.load(files[0] ?? ""), loadDocumentFile(files[0] ?? ""));
    small.save();
    assert.ok(!existsSync(join(dir, "a.pack")), "nothing to write");
    const tight = new ParseCache(join(dir, "b.pack"), { maxBytes: 10 });
    tight.load(files[0] ?? "");
    tight.save();
    assert.ok(!existsSync(join(dir, "b.pack")));
    for (const name of ["1", "2", "3"]) {
      const c = new ParseCache(join(dir, `${name}.pack`), { maxPacks: 2 });
      c.load(join(root, "policy.yaml"));
      c.save();
      utimesSync(join(dir, `${name}.pack`), Number(name), Number(name));
    }
    assert.deepEqual(readdirSync(dir).sort(), ["2.pack", "3.pack"]);
  });

  test("the pack is named for the set of paths, in any order", () => {
    assert.equal(packName(["/a", "/b"]), packName(["/b", "/a"]));
    assert.notEqual(packName(["/a"]), packName(["/a", "/b"]));
    assert.match(packName(["/a"]), /^[0-9a-f]{32}\.pack$/);
  });
});

describe("loadPaths with a parse cache in use", () => {
  test("gives the same documents as without, for files and folders; with limits of its own it reads the files itself", async () => {
    const { root, files, pack } = setUp();
    const alone = await loadPaths([root, ...files]);
    const cache = new ParseCache(pack);
    useParsedFiles(cache);
    try {
      assert.deepEqual(await loadPaths([root, ...files]), alone);
      assert.deepEqual(cache.counts, { misses: files.length, hits: files.length }, "each text parsed once");
      const tight = await loadPaths([files[0] ?? ""], { limits: { maxBytes: 10 } });
      assert.match(tight[0]?.error ?? "", /too large/);
    } finally {
      useParsedFiles(undefined);
    }
  });
});
