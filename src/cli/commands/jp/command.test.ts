/** `bylaw jp`: query, function listing and parse. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { kyvernoFunctions } from "../../../engine/index.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

describe("bylaw jp", () => {
  test("query evaluates against YAML from stdin, with Kyverno functions", async () => {
    const io = recordingIo("metadata:\n  name: web\n  labels: {on: yes}\n");
    assert.equal(await main(["jp", "query", "-c", "to_upper(metadata.name)", "metadata.labels"], io), 0);
    assert.deepEqual(io.stdout, ['"WEB"', '{"true":true}']);
  });
  test("query reads a file and prints unquoted strings with -u", async () => {
    const dir = tempTree({ "pod.json": '{"spec":{"containers":[{"image":"nginx:1"},{"image":"busybox"}]}}' });
    const io = recordingIo();
    assert.equal(
      await main(["jp", "query", "-u", "-i", join(dir, "pod.json"), "join(',', spec.containers[].image)"], io),
      0,
    );
    assert.deepEqual(io.stdout, ["nginx:1,busybox"]);
  });
  test("a missing key is Kyverno's Unknown key error and exit 1", async () => {
    const io = recordingIo('{"a": {}}');
    assert.equal(await main(["jp", "query", "a.b"], io), 1);
    assert.match(io.stderr.join("\n"), /Unknown key "b" in path/);
  });
  test("function lists all 51 Kyverno functions with signatures", async () => {
    const io = recordingIo();
    assert.equal(await main(["jp", "function"], io), 0);
    const out = io.stdout.join("\n");
    const names = kyvernoFunctions().map((f) => f.name);
    assert.equal(names.length, 51);
    for (const n of names) assert.match(out, new RegExp(`Name: ${n}\\n`), n);
    assert.match(out, /Signature: regex_match\(string, string\|number\) boolean/);
  });
  test("function with an unknown name exits 1", async () => {
    const io = recordingIo();
    assert.equal(await main(["jp", "function", "nope"], io), 1);
  });
  test("parse prints the tree, and a syntax error exits 1", async () => {
    const io = recordingIo();
    assert.equal(await main(["jp", "parse", "a.b"], io), 0);
    assert.match(io.stdout.join("\n"), /Subexpression/i);
    assert.equal(await main(["jp", "parse", "a.["], recordingIo()), 1);
  });
});
