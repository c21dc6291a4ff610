import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileToken, resolveConnection } from "./kubeconfig.js";

const b64 = (s: string): string => Buffer.from(s).toString("base64");

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "bylaw-kubeconfig-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const config = (user: string, extra = ""): string => `apiVersion: v1
kind: Config
current-context: dev
contexts:
- name: dev
  context: {cluster: local, user: me}
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority: ca.pem
${extra}users:
- name: me
  user: ${user}
`;

test("kubeconfig: the current context's cluster and client certificate, files relative to the kubeconfig", () => {
  const dir = folder({
    "ca.pem": "CA",
    "c.pem": "CERT",
    kc: config(`{client-certificate: c.pem, client-key-data: ${b64("KEY")}}`),
  });
  const r = resolveConnection({ kubeconfigFlag: join(dir, "kc"), env: { KUBECONFIG: "/nonexistent" }, now: () => 0 });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(r.value.server, "https://127.0.0.1:6443");
  assert.equal(r.value.ca, "CA");
  assert.equal(r.value.cert, "CERT");
  assert.equal(r.value.key, "KEY");
  assert.equal(r.value.token, undefined);
  assert.match(r.value.origin, /context dev/);
});

test("KUBECONFIG lists files; the first to define a name wins", () => {
  const a = folder({ "ca.pem": "CA", kc: config("{token: first}") });
  const b = folder({ kc: "current-context: other\nusers:\n- name: me\n  user: {token: second}\n" });
  const r = resolveConnection({ env: { KUBECONFIG: `${join(a, "kc")}:${join(b, "kc")}` }, now: () => 0 });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(r.value.token?.(), "first");
});

test("exec plugins and basic auth are refused with the field named; a missing context is named", () => {
  const dir = folder({
    "ca.pem": "CA",
    kc: config("{exec: {command: aws}}"),
    bad: config("{token: t}").replace("current-context: dev", "current-context: nope"),
  });
  const r = resolveConnection({ kubeconfigFlag: join(dir, "kc"), env: {}, now: () => 0 });
  assert.equal(r.ok, false);
  if (!r.ok) assert.match(r.error.message, /user field "exec" is not supported/);
  const m = resolveConnection({ kubeconfigFlag: join(dir, "bad"), env: {}, now: () => 0 });
  assert.equal(m.ok, false);
  if (!m.ok) assert.match(m.error.message, /context "nope" is not defined/);
});

test("in-cluster: the service host and port, the CA, and the ServiceAccount token", () => {
  const sa = folder({ "ca.crt": "CLUSTER-CA", token: "tok-1\n" });
  const r = resolveConnection({
    env: { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" },
    now: () => 0,
    serviceAccountDir: sa,
  });
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.equal(r.value.server, "https://10.0.0.1:443");
  assert.equal(r.value.ca, "CLUSTER-CA");
  assert.equal(r.value.token?.(), "tok-1");
  const none = resolveConnection({ env: {}, now: () => 0 });
  assert.equal(none.ok, false);
  if (!none.ok) assert.match(none.error.message, /pass --kubeconfig FILE, set KUBECONFIG, or run in a Pod/);
});

test("a token file is re-read when it changes or is a minute old (rotation), and an unreadable file keeps the last token", () => {
  const dir = folder({ token: "old" });
  let t = 0;
  const token = fileToken(join(dir, "token"), () => t);
  assert.equal(token(), "old");
  writeFileSync(join(dir, "token"), "new");
  t = 61_000;
  assert.equal(token(), "new");
  writeFileSync(join(dir, "token"), "");
  t = 130_000;
  assert.equal(token(), "new", "an empty file (mid-rotation) keeps the last token");
});

test("kubeconfig: --context picks a context other than the current one; an unknown one is named", () => {
  const two = config(`{token: t1}`)
    .replace("contexts:\n", "contexts:\n- name: prod\n  context: {cluster: far, user: me}\n")
    .replace(
      "clusters:\n",
      "clusters:\n- name: far\n  cluster: {server: https://10.0.0.9:443, insecure-skip-tls-verify: true}\n",
    );
  const dir = folder({ "ca.pem": "CA", kc: two });
  const prod = resolveConnection({ kubeconfigFlag: join(dir, "kc"), context: "prod", env: {}, now: () => 0 });
  assert.ok(prod.ok, prod.ok ? "" : prod.error.message);
  assert.equal(prod.value.server, "https://10.0.0.9:443");
  assert.match(prod.value.origin, /context prod$/);
  const current = resolveConnection({ kubeconfigFlag: join(dir, "kc"), env: {}, now: () => 0 });
  assert.ok(current.ok);
  assert.equal(current.value.server, "https://127.0.0.1:6443");
  const unknown = resolveConnection({ kubeconfigFlag: join(dir, "kc"), context: "nope", env: {}, now: () => 0 });
  assert.ok(!unknown.ok);
  assert.match(unknown.error.message, /context "nope" is not defined/);
});
