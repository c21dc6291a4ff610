/**
 * `bylaw apply` without `--cluster`: the resources it is given (`-r`, `--target-resource`,
 * `--parameter-resource`) answer `apiCall` GETs of an object or list URL path, as Kyverno v1.19's
 * apply builds its fake client from them. Only GETs; `configMap` entries and CEL `resource.Get` are
 * not served from them (Kyverno's apply does neither).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { runInTree } from "../../../../test/support/cli-run.js";

/** Each Pod's runAsUser must not be another Pod's (listed with an apiCall across the cluster). */
const uniqueUid = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: unique-uid}
spec:
  validationFailureAction: Audit
  background: false
  rules:
    - name: uid
      match: {any: [{resources: {kinds: [Pod]}}]}
      context:
        - name: others
          apiCall:
            urlPath: /api/v1/pods
            jmesPath: "items[?metadata.name != '{{ request.object.metadata.name }}'].spec.securityContext.runAsUser"
      validate:
        message: "runAsUser {{ request.object.spec.securityContext.runAsUser }} is taken"
        deny:
          conditions:
            any:
              - {key: "{{ request.object.spec.securityContext.runAsUser }}", operator: AnyIn, value: "{{ others }}"}
`;
const byName = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: quota-named}
spec:
  validationFailureAction: Audit
  background: false
  rules:
    - name: quota
      match: {any: [{resources: {kinds: [Pod]}}]}
      context:
        - name: quota
          apiCall:
            urlPath: "/api/v1/namespaces/{{ request.namespace }}/configmaps/quota"
            jmesPath: data.max
      validate:
        message: "the namespace allows {{ quota }}"
        deny:
          conditions:
            any:
              - {key: "{{ quota }}", operator: Equals, value: "0"}
`;
const pod = (name: string, uid: number, ns = "apps") =>
  `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}, namespace: ${ns}}\nspec: {securityContext: {runAsUser: ${uid}}, containers: [{name: c, image: web:1}]}\n`;
const quota = (max: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: quota, namespace: apps}\ndata: {max: "${max}"}\n`;

const apply = (args: string[], files: Record<string, string>) => runInTree("apply", args, files);

describe("bylaw apply: the given resources answer apiCall GETs", () => {
  test("a list URL path lists the given objects of that resource, in every namespace", async () => {
    const clash = await apply(["$DIR/p.yaml", "-r", "$DIR/a.yaml,$DIR/b.yaml"], {
      "p.yaml": uniqueUid,
      "a.yaml": pod("a", 1000),
      "b.yaml": pod("b", 1000, "other"),
    });
    assert.equal(clash.code, 1, clash.err);
    assert.match(clash.out, /pass: 0, fail: 2, warn: 0, error: 0, skip: 0/);
    assert.match(clash.out, /runAsUser 1000 is taken/);
    const apart = await apply(["$DIR/p.yaml", "-r", "$DIR/a.yaml,$DIR/b.yaml"], {
      "p.yaml": uniqueUid,
      "a.yaml": pod("a", 1000),
      "b.yaml": pod("b", 2000),
    });
    assert.match(apart.out, /pass: 2, fail: 0, warn: 0, error: 0, skip: 0/);
  });

  test("an object URL path reads the object, from the target and parameter resources too; a missing one is an error naming it", async () => {
    const files = { "p.yaml": byName, "pod.yaml": pod("a", 1), "zero.yaml": quota("0"), "five.yaml": quota("5") };
    const asResource = await apply(["$DIR/p.yaml", "-r", "$DIR/pod.yaml", "-r", "$DIR/zero.yaml"], files);
    assert.match(asResource.out, /pass: 0, fail: 1, warn: 0, error: 0, skip: 0/, asResource.out);
    const asTarget = await apply(["$DIR/p.yaml", "-r", "$DIR/pod.yaml", "--target-resource", "$DIR/five.yaml"], files);
    assert.match(asTarget.out, /pass: 1, fail: 0, warn: 0, error: 0, skip: 0/, asTarget.out);
    const asParameter = await apply(
      ["$DIR/p.yaml", "-r", "$DIR/pod.yaml", "--parameter-resource", "$DIR/zero.yaml"],
      files,
    );
    assert.match(asParameter.out, /pass: 0, fail: 1, warn: 0, error: 0, skip: 0/, asParameter.out);
    // An error's message is in Bylaw's summary (kyverno apply's text prints only failures).
    const missing = await apply(
      ["$DIR/p.yaml", "-r", "$DIR/pod.yaml", "-r", "$DIR/other.yaml", "--output-format", "summary"],
      {
        ...files,
        "other.yaml": quota("5").replace("name: quota", "name: other"),
      },
    );
    assert.match(missing.out, /pass: 0, fail: 0, warn: 0, error: 1, skip: 0/);
    // Kyverno's words: its loader's, its executor's and its fake client's.
    assert.match(
      missing.out,
      /failed to fetch data for APICall: failed to GET resource with raw url: \/api\/v1\/namespaces\/[^/]+\/configmaps\/quota: failed to get resource v1\/ConfigMap\/quota: configmaps "quota" not found/,
    );
  });

  test("a resource of which nothing was given is not answered: an error saying how to supply it (--set, apiCallResponses)", async () => {
    const r = await apply(["$DIR/p.yaml", "-r", "$DIR/pod.yaml", "--output-format", "summary"], {
      "p.yaml": byName,
      "pod.yaml": pod("a", 1),
    });
    assert.match(r.out, /pass: 0, fail: 0, warn: 0, error: 1, skip: 0/);
    assert.match(r.out, /--set quota=VALUE/);
    assert.match(r.out, /apiCallResponses/);
    const given = await apply(["$DIR/p.yaml", "-r", "$DIR/pod.yaml", "--set", "quota=3"], {
      "p.yaml": byName,
      "pod.yaml": pod("a", 1),
    });
    assert.match(given.out, /pass: 1, fail: 0, warn: 0, error: 0, skip: 0/);
  });
});
