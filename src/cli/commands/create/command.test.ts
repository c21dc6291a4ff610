/** `bylaw create`: each template is a document the rest of Bylaw reads, shaped as `kyverno create` makes it. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { compileException, isObject } from "../../../engine/index.js";
import { main } from "../../main.js";
import { parseTestFile } from "../../test-suite/test-file.js";
import { parseValues } from "../../../platform/offline-values/values-file.js";
import { parseUserInfo } from "../../test-suite/userinfo-file.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

async function create(args: string[]) {
  const io = recordingIo();
  const code = await main(["create", ...args], io);
  return {
    code,
    doc: io.stdout.length > 0 ? (parse(io.stdout.join("\n")) as unknown) : undefined,
    err: io.stderr.join("\n"),
  };
}

describe("bylaw create", () => {
  test("test: a Test bylaw test reads, with the expected rows", async () => {
    const r = await create([
      "test",
      "-n",
      "t",
      "-p",
      "policy.yaml",
      "-r",
      "resource.yaml",
      "-f",
      "values.yaml",
      "--pass",
      "require-team,check-team,web,default,Pod",
      "--fail",
      "require-team,check-team,db",
    ]);
    assert.equal(r.code, 0, r.err);
    const parsed = parseTestFile(r.doc as never);
    assert.ok(parsed.ok, JSON.stringify(parsed));
    assert.equal(parsed.spec.name, "t");
    assert.equal(parsed.spec.variables, "values.yaml");
    assert.deepEqual(
      parsed.spec.results.map((x) => [x.policy, x.rule, x.resources.join(), x.namespace, x.kind, x.result]),
      [
        ["require-team", "check-team", "web", "default", "Pod", "pass"],
        ["require-team", "check-team", "db", "", "", "fail"],
      ],
    );
  });

  test("values: global, namespace selector, rule and resource values, readable as a Values file", async () => {
    const r = await create([
      "values",
      "-g",
      "request.mode=dev",
      "-n",
      "prod,env=prod",
      "--rule",
      "policy,rule,env=demo",
      "--resource",
      "policy,resource,env=demo",
    ]);
    assert.equal(r.code, 0, r.err);
    const { values, errors } = parseValues(r.doc as never);
    assert.deepEqual(errors, []);
    assert.deepEqual(values.globalValues, { "request.mode": "dev" });
    assert.deepEqual(values.namespaceLabels.get("prod"), { env: "prod" });
    assert.deepEqual(values.ruleValues.get("policy")?.[0]?.values, { env: "demo" });
    assert.deepEqual(values.resourceValues.get("policy")?.get("resource"), { env: "demo" });
  });

  test("user-info: a UserInfo file", async () => {
    const r = await create(["user-info", "-u", "molybdenum@somecorp.com", "-g", "basic-user", "-c", "admin"]);
    const parsed = parseUserInfo(r.doc as never);
    assert.ok(parsed.ok);
    assert.equal(parsed.userInfo.username, "molybdenum@somecorp.com");
    assert.deepEqual([...parsed.userInfo.groups], ["basic-user"]);
  });

  test("exception: a PolicyException the engine compiles", async () => {
    const r = await create([
      "exception",
      "my-exception",
      "--namespace",
      "my-ns",
      "--policy-rules",
      "policy,rule-1,rule-2",
      "--any",
      "kind=Pod,kind=Deployment,name=test-*",
      "--background=false",
    ]);
    assert.equal(r.code, 0, r.err);
    const doc = r.doc;
    assert.ok(isObject(doc));
    assert.deepEqual((doc as { spec: unknown }).spec, {
      background: false,
      exceptions: [{ policyName: "policy", ruleNames: ["rule-1", "rule-2"] }],
      match: { any: [{ resources: { kinds: ["Pod", "Deployment"], names: ["test-*"] } }] },
    });
    const compiled = compileException(doc);
    assert.ok(compiled.ok, JSON.stringify(compiled));
  });

  test("cleanup-policy: cluster-wide by default, a CleanupPolicy with --namespace", async () => {
    const a = await create(["cleanup-policy", "old-jobs", "--any", "kind=Job", "-s", "0 * * * *"]);
    assert.deepEqual(a.doc, {
      apiVersion: "kyverno.io/v2",
      kind: "ClusterCleanupPolicy",
      metadata: { name: "old-jobs" },
      spec: { schedule: "0 * * * *", match: { any: [{ resources: { kinds: ["Job"] } }] } },
    });
    const b = await create(["cleanup-policy", "old-jobs", "--namespace", "ci", "--all", "kind=Job"]);
    assert.equal((b.doc as { kind: string }).kind, "CleanupPolicy");
  });

  test("metrics-config: Kyverno's metrics ConfigMap with the namespaces JSON", async () => {
    const r = await create(["metrics-config", "-i", "ns-included-1", "-i", "ns-included-2", "-e", "ns-excluded"]);
    assert.deepEqual(r.doc, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "kyverno-metrics", namespace: "kyverno" },
      data: { namespaces: '{"include":["ns-included-1","ns-included-2"],"exclude":["ns-excluded"]}' },
    });
  });

  test("-o writes the file instead of printing it", async () => {
    const dir = tempTree({});
    const out = join(dir, "user.yaml");
    const r = await create(["user-info", "-u", "me", "-o", out]);
    assert.equal(r.code, 0);
    assert.equal(r.doc, undefined);
    assert.match(readFileSync(out, "utf8"), /username: me/);
  });

  test("bad input is a one-line usage error, exit 2", async () => {
    for (const args of [
      [],
      ["nope"],
      ["exception", "x"],
      ["exception", "x", "--policy-rules", "p,r"],
      ["values", "-g", "novalue"],
      ["test", "--pass", "only-policy"],
    ]) {
      const r = await create(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.err.split("\n").length, 2, r.err);
    }
  });

  test("the templates load back: bylaw test runs the created suite with its values and user info; bylaw apply honours the created values, user info and exception", async () => {
    const dir = tempTree({
      "policy.yaml": `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: require-team}
spec:
  validationFailureAction: Enforce
  rules:
    - name: check-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      exclude: {any: [{clusterRoles: [break-glass]}]}
      validate:
        message: "team required in {{ request.mode }}"
        pattern: {metadata: {labels: {team: "?*"}}}
`,
      "resource.yaml": `apiVersion: v1
kind: Pod
metadata: {name: web, namespace: default, labels: {team: a}}
spec: {containers: [{name: c, image: nginx}]}
---
apiVersion: v1
kind: Pod
metadata: {name: db, namespace: default}
spec: {containers: [{name: c, image: nginx}]}
`,
    });
    const at = (f: string) => join(dir, f);
    const made = [
      [
        "test",
        "-n",
        "created",
        "-p",
        "policy.yaml",
        "-r",
        "resource.yaml",
        "-f",
        "values.yaml",
        "--pass",
        "require-team,check-team,web,default,Pod",
        "--fail",
        "require-team,check-team,db,default,Pod",
        "-o",
        at("kyverno-test.yaml"),
      ],
      ["values", "-g", "request.mode=dev", "-n", "default,env=prod", "-o", at("values.yaml")],
      ["user-info", "-u", "me@corp", "-g", "devs", "-c", "break-glass", "-o", at("user.yaml")],
      [
        "exception",
        "skip-db",
        "--namespace",
        "default",
        "--policy-rules",
        "require-team,check-team",
        "--any",
        "kind=Pod,name=db",
        "-o",
        at("exception.yaml"),
      ],
    ];
    for (const args of made) assert.equal((await create(args)).code, 0, args.join(" "));
    const suite = recordingIo();
    assert.equal(await main(["test", dir], suite), 0, suite.stdout.join("\n") + suite.stderr.join("\n"));
    const apply = async (extra: string[]) => {
      const io = recordingIo();
      const code = await main(
        [
          "apply",
          at("policy.yaml"),
          "-r",
          at("resource.yaml"),
          "-f",
          at("values.yaml"),
          "--output-format",
          "json",
          ...extra,
        ],
        io,
      );
      const out = JSON.parse(io.stdout.join("\n")) as {
        results: { resource: string; result: string; message: string }[];
      };
      return { code, rows: out.results.map((r) => `${r.resource} ${r.result} ${r.message}`) };
    };
    const plain = await apply([]);
    assert.equal(plain.code, 1);
    assert.ok(
      plain.rows.some((r) => r.startsWith("Pod/default/db fail validation error: team required in dev.")),
      plain.rows.join("\n"),
    );
    assert.equal((await apply(["-e", at("exception.yaml")])).code, 0, "the created exception covers db");
    const asBreakGlass = await apply(["-u", at("user.yaml")]);
    assert.equal(
      asBreakGlass.code,
      0,
      "the created user info's cluster role is excluded: " + asBreakGlass.rows.join("\n"),
    );
  });

  test("every template has its own --help", async () => {
    for (const t of ["test", "values", "user-info", "exception", "cleanup-policy", "metrics-config"]) {
      const io = recordingIo();
      assert.equal(await main(["create", t, "--help"], io), 0);
      assert.match(io.stdout.join("\n"), new RegExp(`Usage: bylaw create ${t}`));
    }
  });
});
