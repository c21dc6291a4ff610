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

  test("a cluster-scoped kind stays without a namespace, as in Kyverno's CLI: built-in, and a CRD's with scope Cluster", async () => {
    const seeNamespace = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: see-namespace}
spec:
  validationFailureAction: Audit
  rules:
    - name: show
      match: {any: [{resources: {kinds: [ClusterRole, Namespace, Widget, Gadget, ConfigMap]}}]}
      validate:
        message: "ns=[{{ request.namespace }}]"
        deny: {}
`;
    const crd = (kind: string, scope: string) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: ${kind.toLowerCase()}s.example.com}
spec:
  group: example.com
  scope: ${scope}
  names: {kind: ${kind}, plural: ${kind.toLowerCase()}s}
  versions: [{name: v1, served: true, storage: true}]
`;
    const objects = [
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\n",
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n",
      "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n",
      "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n",
      // A kind named like a cluster-scoped one in another group is not: Kyverno matches the group too.
      "apiVersion: example.org/v1\nkind: ClusterRole\nmetadata: {name: lookalike}\n",
      configMap("name: settings"),
    ];
    const dir = tempTree({
      "p.yaml": seeNamespace,
      "r.yaml": objects.join("---\n"),
      "crds.yaml": `${crd("Widget", "Cluster")}---\n${crd("Gadget", "Namespaced")}`,
    });
    const io = recordingIo();
    await main(
      [
        "apply",
        join(dir, "p.yaml"),
        "-r",
        join(dir, "r.yaml"),
        "--crd-paths",
        join(dir, "crds.yaml"),
        "--output-format",
        "json",
      ],
      io,
    );
    const out = JSON.parse(io.stdout.join("\n")) as Out;
    assert.deepEqual(
      out.results.map((r) => [r.resource, r.message]),
      [
        ["ClusterRole/reader", "ns=[]"],
        ["Namespace/team", "ns=[]"],
        ["Widget/w", "ns=[]"],
        ["Gadget/default/g", "ns=[default]"],
        ["ClusterRole/default/lookalike", "ns=[default]"],
        ["ConfigMap/default/settings", "ns=[default]"],
      ],
    );
  });
});
