/** `bylaw cel`: eval against resources, errors with positions, exit codes, function listing. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const POD =
  "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  containers:\n  - name: a\n    image: ghcr.io/x/a:1\n  - name: b\n    image: nginx\n";

describe("bylaw cel", () => {
  test("eval prints the JSON result for the resource", async () => {
    const dir = tempTree({ "pod.yaml": POD });
    const io = recordingIo();
    assert.equal(
      await main(
        [
          "cel",
          "eval",
          "-c",
          "object.spec.containers.filter(c, !c.image.startsWith('ghcr.io/')).map(c, c.name)",
          "-r",
          join(dir, "pod.yaml"),
        ],
        io,
      ),
      0,
    );
    assert.deepEqual(io.stdout, ['["b"]']);
  });
  test("eval reads standard input with -r - and evaluates every document, labelling each value", async () => {
    const io = recordingIo(`${POD}---\nmetadata: {name: other, namespace: shop}\n`);
    assert.equal(await main(["cel", "eval", "object.metadata.?labels[?'app'].orValue('none')", "-r", "-"], io), 0);
    assert.deepEqual(io.stdout, ["# document 1: Pod/web", '"web"', "# document 2: (no kind)/shop/other", '"none"']);
    const failing = recordingIo(`${POD}---\nkind: Pod\nmetadata: {name: bare}\n`);
    assert.equal(await main(["cel", "eval", "object.spec.containers.size()", "-r", "-"], failing), 1);
    assert.deepEqual(failing.stdout, ["# document 1: Pod/web", "2"]);
    assert.match(failing.stderr.join("\n"), /^bylaw cel eval: evaluation failed \(document 2: Pod\/bare\): /);
  });
  test("without a resource, object is null and constants still evaluate", async () => {
    const io = recordingIo();
    assert.equal(
      await main(["cel", "eval", "quantity('1Gi').isGreaterThan(quantity('1000Mi')) && object == null"], io),
      0,
    );
    assert.deepEqual(io.stdout, ["true"]);
  });
  test("a compile error exits 1 with cel-go's message and the position", async () => {
    const io = recordingIo();
    assert.equal(await main(["cel", "eval", "object.spec + nope(1)"], io), 1);
    assert.equal(
      io.stderr.join("\n"),
      "bylaw cel eval: compilation failed: ERROR: <input>:1:15: undeclared reference to 'nope' (in container '')\n | object.spec + nope(1)\n | ..............^",
    );
  });
  test("an evaluation error exits 1 and names the problem", async () => {
    const dir = tempTree({ "pod.yaml": POD });
    const io = recordingIo();
    assert.equal(await main(["cel", "eval", "object.spec.missing", "-r", join(dir, "pod.yaml")], io), 1);
    assert.match(io.stderr.join("\n"), /evaluation failed: no such key: missing/);
  });
  test("params, oldObject and request come from their flags", async () => {
    const dir = tempTree({
      "p.yaml": "max: 2\n",
      "old.yaml": "metadata: {name: before}\n",
      "req.yaml": "operation: UPDATE\n",
    });
    const io = recordingIo();
    const args = [
      "cel",
      "eval",
      "-c",
      "[params.max, oldObject.metadata.name, request.operation]",
      "--params",
      join(dir, "p.yaml"),
      "--old-resource",
      join(dir, "old.yaml"),
      "--request",
      join(dir, "req.yaml"),
    ];
    assert.equal(await main(args, io), 0);
    assert.deepEqual(io.stdout, ['[2,"before","UPDATE"]']);
  });
  test("bad input is exit 2 with the file named", async () => {
    const dir = tempTree({ "bad.yaml": "a: [\n" });
    const io = recordingIo();
    assert.equal(await main(["cel", "eval", "true", "-r", join(dir, "bad.yaml")], io), 2);
    assert.match(io.stderr.join("\n"), /bad\.yaml/);
    assert.equal(await main(["cel", "eval"], recordingIo()), 2);
    assert.equal(await main(["cel", "nope"], recordingIo()), 2);
  });
  test("--help teaches the variables and shows examples; functions lists signatures", async () => {
    const help = recordingIo();
    assert.equal(await main(["cel", "--help"], help), 0);
    assert.match(help.stdout.join("\n"), /Variables: object, oldObject, params, namespaceObject, request/);
    assert.match(help.stdout.join("\n"), /Examples:/);
    const fns = recordingIo();
    assert.equal(await main(["cel", "functions"], fns), 0);
    const out = fns.stdout.join("\n");
    assert.match(out, /quantity\(string\): kubernetes\.Quantity/);
    assert.match(out, /string\.matches\(string\): bool/);
    assert.match(out, /^math\.greatest\(dyn, dyn\): dyn$/m);
    assert.match(out, /^optional\.of\(A\): optional<A>$/m);
    assert.doesNotMatch(out, /bylawRe2Matches|Namespace/);
  });
});
