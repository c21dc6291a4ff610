/** Secret data never reaches a log line, wherever the Secret sits in what is logged. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createLogger } from "./create-logger.js";
import { REDACTED, redactSecrets } from "./redact-secrets.js";
import { capture } from "../../../test/support/log-capture.js";

const PASSWORD_B64 = "c3VwZXItc2VjcmV0LXBhc3N3b3Jk"; // "super-secret-password"
const TOKEN = "plain-text-token-1234";

const secret = () => ({
  apiVersion: "v1",
  kind: "Secret",
  metadata: {
    name: "db",
    namespace: "prod",
    annotations: {
      team: "db",
      "kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","data":{"password":"${PASSWORD_B64}"},"kind":"Secret"}`,
    },
  },
  type: "Opaque",
  data: { password: PASSWORD_B64 },
  stringData: { token: TOKEN },
});

const review = () => ({
  apiVersion: "admission.k8s.io/v1",
  kind: "AdmissionReview",
  request: {
    uid: "u1",
    kind: { group: "", version: "v1", kind: "Secret" },
    resource: { group: "", version: "v1", resource: "secrets" },
    operation: "UPDATE",
    object: secret(),
    oldObject: secret(),
  },
  response: {
    uid: "u1",
    allowed: true,
    patchType: "JSONPatch",
    patch: Buffer.from(`[{"op":"add","path":"/data/x","value":"${PASSWORD_B64}"}]`).toString("base64"),
  },
});

function logged(write: (log: ReturnType<typeof createLogger>) => void): string {
  const out = capture();
  write(createLogger({ destination: out, level: "debug" }));
  return out.lines.join("");
}

function assertClean(text: string): void {
  assert.ok(!text.includes(PASSWORD_B64), "the base64 password leaked");
  assert.ok(!text.includes("super-secret-password"), "the decoded password leaked");
  assert.ok(!text.includes(TOKEN), "the stringData token leaked");
  assert.ok(
    !text.includes(Buffer.from(`[{"op":"add","path":"/data/x","value":"${PASSWORD_B64}"}]`).toString("base64")),
    "the patch leaked",
  );
}

describe("through the logger", () => {
  const placements: [string, (log: ReturnType<typeof createLogger>) => void][] = [
    ["a whole AdmissionReview", (log) => log.info(review(), "review")],
    ["a review under a key", (log) => log.info({ review: review() }, "review")],
    ["a review nested three levels down", (log) => log.debug({ a: { b: { c: review() } } }, "deep")],
    ["a bare Secret", (log) => log.warn(secret(), "secret")],
    ["a Secret in a list", (log) => log.info({ items: [{ kind: "ConfigMap", data: { a: "b" } }, secret()] }, "list")],
    [
      "a request alone (DELETE: only oldObject)",
      (log) => log.info({ req: { ...review().request, operation: "DELETE", object: null } }, "req"),
    ],
    [
      "the items of a SecretList (which carry no kind)",
      (log) =>
        log.info(
          {
            a: {
              list: {
                kind: "SecretList",
                items: [{ metadata: { name: "db" }, data: { password: PASSWORD_B64 }, stringData: { token: TOKEN } }],
              },
            },
          },
          "list",
        ),
    ],
    ["a child logger's bindings", (log) => log.child({ resource: secret() }).info("bound")],
    [
      "a grandchild logger's bindings",
      (log) => log.child({ a: 1 }).child({ resource: secret() }, { level: "info" }).info("bound"),
    ],
    [
      "an object without kind under an AdmissionRequest for secrets",
      (log) =>
        log.info({ wrapped: { request: { ...review().request, object: { data: { password: PASSWORD_B64 } } } } }, "x"),
    ],
  ];
  for (const [name, write] of placements) test(`${name} shows no secret values`, () => assertClean(logged(write)));

  test("what is not secret stays readable", () => {
    const text = logged((log) => log.info({ review: review() }, "review"));
    const line = JSON.parse(text) as {
      review: {
        request: { object: { metadata: { name: string; annotations: Record<string, string> }; data: string } };
      };
    };
    assert.equal(line.review.request.object.metadata.name, "db");
    assert.equal(line.review.request.object.metadata.annotations["team"], "db");
    assert.equal(line.review.request.object.data, REDACTED);
  });

  test("`data` and `stringData` at the top and one level down are redacted whatever the kind (pino's `*.data`)", () => {
    const text = logged((log) =>
      log.info(
        { data: "top", cm: { kind: "ConfigMap", data: { color: "blue" }, stringData: "s" }, other: { name: "x" } },
        "shallow",
      ),
    );
    const line = JSON.parse(text) as Record<string, Record<string, unknown>>;
    assert.equal(line["data"], REDACTED);
    assert.deepEqual(line["cm"], { kind: "ConfigMap", data: REDACTED, stringData: REDACTED });
    assert.deepEqual(line["other"], { name: "x" });
  });

  test("the data of a ConfigMap deeper in a log object is kept", () => {
    const text = logged((log) => log.info({ a: { b: { kind: "ConfigMap", data: { color: "blue" } } } }, "cm"));
    assert.match(text, /"color":"blue"/);
  });
});

describe("redactSecrets", () => {
  test("does not change the caller's object and returns it as is when there is nothing to remove", () => {
    const r = review();
    const before = JSON.stringify(r);
    const cleaned = redactSecrets(r);
    assert.equal(JSON.stringify(r), before);
    assert.notEqual(cleaned, r);
    const plain = { kind: "Pod", spec: { containers: [{ name: "a" }] } };
    assert.equal(redactSecrets(plain), plain);
  });

  test("a cycle does not hang and does not bring the uncleaned Secret back", () => {
    const s: Record<string, unknown> = secret();
    s["self"] = s;
    const cleaned = redactSecrets(s);
    assert.equal(cleaned["data"], REDACTED);
    assert.equal(cleaned["self"], "[Circular]");
    assertClean(logged((log) => log.info({ wrapper: { s } }, "cycle")));
  });

  test("a value nested deeper than can be checked is replaced", () => {
    let deep: Record<string, unknown> = secret();
    for (let i = 0; i < 100; i++) deep = { next: deep };
    assertClean(JSON.stringify(redactSecrets(deep)));
  });
});
