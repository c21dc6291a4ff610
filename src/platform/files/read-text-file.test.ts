import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { readTextFile } from "./read-text-file.js";

describe("readTextFile", () => {
  it("returns the text, or an error value naming the path", async () => {
    const dir = await mkdtemp(join(tmpdir(), "bylaw-read-"));
    try {
      await writeFile(join(dir, "a.yaml"), "kind: A\n");
      assert.deepEqual(await readTextFile(join(dir, "a.yaml")), { ok: true, value: "kind: A\n" });
      const missing = await readTextFile(join(dir, "missing.yaml"));
      assert.deepEqual(missing, {
        ok: false,
        error: { kind: "not-found", message: `no such file or directory: ${join(dir, "missing.yaml")}` },
      });
      const directory = await readTextFile(dir);
      assert.equal(directory.ok ? "" : directory.error.kind, "is-directory");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
