/** The parse cache gives exactly what parsing gives, misses on any change of text or path, and trusts only this user's files. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tempTree } from "../../../test/support/temp-dir.js";
import type { JsonObject } from "../../engine/index.js";
import { loadDocumentFile } from "./load-document-file.js";
import { loadPaths } from "./load-paths.js";
import { MAX_TEXT, ParseCache } from "./parse-cache.js";
import { useParsedFiles } from "./parsed-files-hook.js";

const texts = {
  "policy.yaml": "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\n---\n# empty\n---\nkind: Pod\nmetadata:\n  labels: {on: yes, mode: 0755}\n",
  "broken.yaml": "a: [1, 2\nb: {\n",
  "data.json": '{"__proto__": {"polluted": true}, "n": 1e400, "list": [1, "two"]}',
  "aliases.yml": "base: &b {x: 1}\nthis:\n  <<: *b\n  y: 2\n",
};

function setUp(): { root: string; files: string[]; dir: string } {
  const root = tempTree(texts);
  return { root, files: Object.keys(texts).map((f) => join(root, f)), dir: join(mkdtempSync(join(tmpdir(), "bylaw-parse-cache-")), "parse") };
}

describe("ParseCache", () => {
  test("a second run reads from the cache exactly what the first parsed: documents, errors, JSON, aliases", () => {
    const { files, dir } = setUp();
    const first = new ParseCache(dir);
    for (const f of files) assert.deepEqual(first.load(f), loadDocumentFile(f), f);
    assert.deepEqual(first.counts, { hits: 0, misses: files.length });
    first.save();
    assert.equal(readdirSync(dir).length, files.length);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    for (const e of readdirSync(dir)) assert.equal(statSync(join(dir, e)).mode & 0o777, 0o600);

    const second = new ParseCache(dir);
    for (const f of files) assert.deepEqual(second.load(f), loadDocumentFile(f), f);
    assert.deepEqual(second.counts, { hits: files.length, misses: 0 });
  });

  test("a file whose text changed (same size, same path) is parsed again: no timestamp is trusted", () => {
    const { files, dir } = setUp();
    const file = files[0] ?? "";
    const first = new ParseCache(dir);
    first.load(file);
    first.save();
    writeFileSync(file, (texts["policy.yaml"]).replace("name: p", "name: q"));
    const second = new ParseCache(dir);
    const docs = second.load(file);
    assert.equal(((docs?.[0]?.value as JsonObject)["metadata"] as JsonObject)["name"], "q");
    assert.deepEqual(second.counts, { hits: 0, misses: 1 });
  });

  test("the same text at another path is another entry (the documents and their errors name the path)", () => {
    const { root, dir } = setUp();
    const a = join(root, "broken.yaml");
    const b = join(root, "copy-of-broken.yaml");
    writeFileSync(b, texts["broken.yaml"]);
    const cache = new ParseCache(dir);
    cache.load(a);
    cache.save();
    const again = new ParseCache(dir);
    const docs = again.load(b);
    assert.deepEqual(docs, loadDocumentFile(b));
    assert.match(docs?.[0]?.error ?? "", /copy-of-broken\.yaml/);
    assert.equal(again.counts.hits, 0);
  });

  test("in a folder others may enter, an entry others may write, or one that is not a cache entry, is not used", () => {
    const { files, dir } = setUp();
    const first = new ParseCache(dir);
    for (const f of files) first.load(f);
    first.save();
    chmodSync(dir, 0o755);
    const [writable, corrupt] = readdirSync(dir).map((e) => join(dir, e));
    chmodSync(writable ?? "", 0o666);
    writeFileSync(corrupt ?? "", "not v8 serialized data");
    const second = new ParseCache(dir);
    for (const f of files) assert.deepEqual(second.load(f), loadDocumentFile(f), f);
    assert.deepEqual(second.counts, { hits: files.length - 2, misses: 2 });
  });

  test("in its own closed folder, a corrupt entry is still only a miss", () => {
    const { files, dir } = setUp();
    const first = new ParseCache(dir);
    for (const f of files) first.load(f);
    first.save();
    const [corrupt] = readdirSync(dir).map((e) => join(dir, e));
    writeFileSync(corrupt ?? "", "not v8 serialized data");
    const second = new ParseCache(dir);
    for (const f of files) assert.deepEqual(second.load(f), loadDocumentFile(f), f);
    assert.deepEqual(second.counts, { hits: files.length - 1, misses: 1 });
  });

  test("what a caller changes in the documents it was given is not what the cache keeps", () => {
    const { files, dir } = setUp();
    const file = files[0] ?? "";
    const first = new ParseCache(dir);
    const docs = first.load(file);
    ((docs?.[0]?.value as JsonObject)["metadata"] as JsonObject)["name"] = "changed";
    first.save();
    assert.deepEqual(new ParseCache(dir).load(file), loadDocumentFile(file));
  });

  test("a file it cannot read, or a text over MAX_TEXT, is left to the caller; a folder it cannot write is no error", () => {
    const { root, dir } = setUp();
    const cache = new ParseCache(dir);
    assert.equal(cache.load(join(root, "missing.yaml")), undefined);
    const big = join(root, "big.yaml");
    writeFileSync(big, `a: "${"x".repeat(MAX_TEXT)}"\n`);
    assert.equal(cache.load(big), undefined);
    const blocked = new ParseCache(join(root, "policy.yaml", "parse"));
    assert.ok(blocked.load(join(root, "policy.yaml")) !== undefined);
    assert.doesNotThrow(() => blocked.save());
  });
});

describe("ParseCache bounds", () => {
  test("a folder that would go over its entries or bytes is emptied before this run's entries are written", () => {
    const { files, dir } = setUp();
    const first = new ParseCache(dir);
    for (const f of files.slice(0, 3)) first.load(f);
    first.save();
    assert.equal(readdirSync(dir).length, 3);
    const byCount = new ParseCache(dir, { maxEntries: 3 });
    byCount.load(files[3] ?? "");
    byCount.save();
    assert.equal(readdirSync(dir).length, 1, "emptied, then the one new entry");
    const byBytes = new ParseCache(dir, { maxBytes: 10 });
    byBytes.load(files[0] ?? "");
    byBytes.save();
    assert.equal(readdirSync(dir).length, 1);
    assert.deepEqual(new ParseCache(dir).load(files[0] ?? ""), loadDocumentFile(files[0] ?? ""));
  });

  test("an entry over its size is parsed each time and never written", () => {
    const { files, dir } = setUp();
    const small = new ParseCache(dir, { maxEntryBytes: 16 });
    assert.deepEqual(small.load(files[0] ?? ""), loadDocumentFile(files[0] ?? ""));
    small.save();
    assert.ok(!existsSync(dir) || readdirSync(dir).length === 0, "nothing written");
  });
});

describe("loadPaths with a parse cache in use", () => {
  test("gives the same documents as without, for files and folders; with limits of its own it reads the files itself", async () => {
    const { root, files, dir } = setUp();
    const alone = await loadPaths([root, ...files]);
    const cache = new ParseCache(dir);
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
