/** `bylaw apply`: a manifest without a namespace is in `default`, as Kyverno's CLI loads resource files. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const onlyInDefault = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: not-in-default}
spec:
  validationFailureAction: Enforce
  rules:
    - name: no-default
      match: {any: [{resources: {kinds: [ConfigMap], namespaces: [default]}}]}
      validate:
        message: "{{ request.namespace }}/{{ request.object.metadata.namespace }} is not allowed"
        deny: {}
`;
const configMap = (metadata: string) => `apiVersion: v1
kind: ConfigMap
metadata: {${metadata}}
data: {a: b}
`;

interface Out {
  readonly results: readonly { readonly resource: string; readonly result: string; readonly message: string }[];
}

describe("bylaw apply: missing namespaces", () => {
  test("a resource without metadata.namespace is matched, named and seen by variables as in default", async () => {
    const dir = tempTree({
      "p.yaml": onlyInDefault,
      "r.yaml": configMap("name: settings") + "---\n" + configMap("name: other, namespace: shop"),
    });
    const io = recordingIo();
    assert.equal(
      await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "--output-format", "json"], io),
      1,
    );
    const out = JSON.parse(io.stdout.join("\n")) as Out;
    assert.deepEqual(
      out.results.map((r) => [r.resource, r.result]),
      [["ConfigMap/default/settings", "fail"]],
    );
    assert.match(out.results[0]?.message ?? "", /default\/default is not allowed/);
  });

  test("-t targets without a namespace are in default too", async () => {
    const clone = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: copy-settings}
spec:
  rules:
    - name: copy
      match: {any: [{resources: {kinds: [Namespace]}}]}
      generate:
        apiVersion: v1
        kind: ConfigMap
        name: settings
        namespace: "{{ request.object.metadata.name }}"
        clone: {namespace: default, name: settings}
`;
    const dir = tempTree({
      "p.yaml": clone,
      "ns.yaml": "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n",
      "t.yaml": configMap("name: settings"),
    });
    const io = recordingIo();
    assert.equal(
      await main(
        [
          "apply",
          join(dir, "p.yaml"),
          "-r",
          join(dir, "ns.yaml"),
          "--target-resource",
          join(dir, "t.yaml"),
          "--output-format",
          "json",
        ],
        io,
      ),
      0,
      io.stderr.join("\n"),
    );
    const out = JSON.parse(io.stdout.join("\n")) as Out & {
      resources: { resource: { metadata: { namespace: string }; data: unknown } }[];
    };
    assert.deepEqual(
      out.results.map((r) => r.result),
      ["pass"],
    );
    assert.deepEqual(
      out.resources.map((p) => [p.resource.metadata.namespace, p.resource.data]),
      [["team-a", { a: "b" }]],
    );
  });
});
