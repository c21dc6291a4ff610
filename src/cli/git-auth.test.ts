/**
 * `bylaw apply https://HOST/OWNER/REPO --username U --password P` (kyverno apply's Git credentials):
 * a real `git http-backend` behind a local HTTP server that wants basic credentials.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "./main.js";
import { recordingIo } from "../../test/support/fake-io.js";

const BACKEND = "/usr/lib/git-core/git-http-backend";
const policy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: need-team}
spec:
  validationFailureAction: Enforce
  rules:
    - name: need-team
      match: {any: [{resources: {kinds: [Pod]}}]}
      validate: {message: "label team is required", pattern: {metadata: {labels: {team: "?*"}}}}
`;
const pod =
  "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: c, image: nginx:1}]}\n";
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "pipe" });

/** Serves the bare repositories under `root` through git http-backend (CGI), to `user:secret` only. */
function gitServer(root: string, seen: string[]): Server {
  const expected = `Basic ${Buffer.from("user:secret").toString("base64")}`;
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(req.headers.authorization ?? "");
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"' }).end();
      return;
    }
    const url = new URL(req.url ?? "/", "http://x");
    const cgi = spawn(BACKEND, [], {
      env: {
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        REMOTE_USER: "user",
      },
    });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on("data", (c: Buffer) => chunks.push(c));
    cgi.on("close", () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf("\r\n\r\n");
      const head = all.subarray(0, end).toString("latin1").split("\r\n");
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head) {
        const [k, ...v] = line.split(": ");
        if (k === undefined) continue;
        if (k.toLowerCase() === "status") status = Number(v.join(": ").split(" ")[0]);
        else headers[k] = v.join(": ");
      }
      res.writeHead(status, headers).end(all.subarray(end + 4));
    });
  });
}

describe("Git URLs with --username and --password", { skip: !existsSync(BACKEND) && "no git http-backend" }, () => {
  const root = mkdtempSync(join(tmpdir(), "bylaw-git-http-"));
  const seen: string[] = [];
  const server = gitServer(root, seen);
  let base = "";
  let resources = "";

  before(async () => {
    const work = join(root, "work");
    mkdirSync(work);
    writeFileSync(join(work, "policy.yaml"), policy);
    git(work, "init", "-q", "-b", "main");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "policy");
    mkdirSync(join(root, "acme"));
    git(root, "clone", "-q", "--bare", work, join(root, "acme", "policies"));
    resources = join(root, "pod.yaml");
    writeFileSync(resources, pod);
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/acme/policies`;
  });
  after(() => server.close());

  test("clones with the credentials as HTTP basic auth and applies the repository's policies", async () => {
    const io = recordingIo();
    const code = await main(["apply", base, "-r", resources, "--username", "user", "--password", "secret"], io);
    assert.equal(code, 1, io.stderr.join("\n"));
    assert.match(io.stdout.join("\n"), /label team is required/);
    assert.ok(seen.includes(`Basic ${Buffer.from("user:secret").toString("base64")}`));
    assert.doesNotMatch(io.stderr.join("\n"), /secret/, "the password is never printed");
  });

  test("without them (or with a wrong password) the clone is refused: exit 2 naming the repository, no password shown", async () => {
    for (const extra of [[], ["--username", "user", "--password", "wrong"]]) {
      const io = recordingIo();
      const code = await main(["apply", base, "-r", resources, ...extra], io);
      assert.equal(code, 2);
      const err = io.stderr.join("\n");
      assert.match(err, /cannot clone http:\/\/127\.0\.0\.1:\d+\/acme\/policies \(branch main\)/);
      assert.doesNotMatch(err, /wrong/);
    }
  });

  test("--username and --password with no Git URL among the POLICY paths warn that they are not used", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bylaw-git-none-"));
    writeFileSync(join(dir, "p.yaml"), policy);
    const io = recordingIo();
    await main(["apply", join(dir, "p.yaml"), "-r", resources, "--username", "user", "--password", "secret"], io);
    assert.match(io.stderr.join("\n"), /--username and --password are for Git URLs among the POLICY paths/);
  });
});
