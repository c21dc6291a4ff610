/** Without a userinfo file, request.userInfo is null, as in Kyverno's CLI (not an empty user). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../main.js";
import { recordingIo } from "../../../test/support/fake-io.js";
import { tempTree } from "../../../test/support/temp-dir.js";

const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: who}
spec:
  validationFailureAction: Enforce
  background: false
  rules:
    - name: no-user
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate:
        message: "user is {{ to_string(request.userInfo) }}"
        deny:
          conditions:
            any:
              - key: "{{ to_string(request.userInfo) }}"
                operator: NotEquals
                value: "null"
`;
const pod = `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: c, image: nginx:1}]}
`;
const user = `apiVersion: cli.kyverno.io/v1alpha1
kind: UserInfo
metadata: {name: user}
userInfo: {username: alice}
`;

test("apply: request.userInfo is null without -u, and the file's user with it", async () => {
  const dir = tempTree({ "p.yaml": policy, "r.yaml": pod, "u.yaml": user });
  const none = recordingIo();
  assert.equal(await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml")], none), 0, none.stdout.join("\n"));
  const alice = recordingIo();
  const code = await main(["apply", join(dir, "p.yaml"), "-r", join(dir, "r.yaml"), "-u", join(dir, "u.yaml")], alice);
  assert.equal(code, 1);
  assert.match(alice.stdout.join("\n"), /user is \{"groups":\[\],"username":"alice"\}/);
});
