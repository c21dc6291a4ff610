/** `bylaw apply` on a policy folder with no policies, and on a path that does not exist. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, image: nginx:1}]}\n";

test("an empty policy folder applies 0 policies, exits 0 and says so on stderr", async () => {
  const dir = tempTree({ "policies/README.md": "no policies yet\n", "r.yaml": pod });
  const io = recordingIo();
  assert.equal(await main(["apply", join(dir, "policies"), "-r", join(dir, "r.yaml")], io), 0);
  assert.match(io.stderr.join("\n"), /warning: no policies found in .*policies: 0 policies applied/);
});

test("a POLICY path that does not exist exits 2, naming it", async () => {
  const dir = tempTree({ "r.yaml": pod });
  const io = recordingIo();
  assert.equal(await main(["apply", join(dir, "nope"), "-r", join(dir, "r.yaml")], io), 2);
  assert.match(io.stderr.join("\n"), /no such file or directory: .*nope/);
});
