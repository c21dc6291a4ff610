/**
 * Read YAML with the real kubectl: `kubectl create --dry-run=client --validate=false -o json -f FILE`,
 * whose file decoder is sigs.k8s.io/yaml over go-yaml v2 (YAML 1.1 scalars), as `kubectl apply` reads.
 * kubectl maps each kind to a resource through API discovery even in client dry-run, so a stub
 * answering discovery only (for the kinds in the file, all namespaced) listens on 127.0.0.1 for the
 * call; nothing is ever created. One kubectl call reads a whole file of documents.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isObject, type JsonObject } from "../../src/engine/index.js";

/** The kubectl on PATH, or why there is none. */
export async function kubectlAvailable(): Promise<{ ok: true; version: string } | { ok: false; why: string }> {
  return new Promise((done) => {
    execFile("kubectl", ["version", "--client"], { encoding: "utf8" }, (error, stdout) => {
      if (error !== null) done({ ok: false, why: error.message });
      else done({ ok: true, version: stdout.split("\n")[0] ?? "" });
    });
  });
}

/** What to tell when kubectl is missing; tests fail on it unless BYLAW_ALLOW_NO_KUBECTL=1. */
export function noKubectlMessage(why: string): string {
  return `KUBECTL NOT FOUND (${why}): the YAML 1.1 read-back with real kubectl did NOT run. Install kubectl, or set BYLAW_ALLOW_NO_KUBECTL=1 to run without that check.`;
}

export const allowNoKubectl = (): boolean => process.env["BYLAW_ALLOW_NO_KUBECTL"] === "1";

export type Kind = { readonly apiVersion: string; readonly kind: string };

/**
 * Every object of a YAML stream as kubectl decodes it, in order. `kinds` are the apiVersion/kind
 * pairs the stream holds (discovery serves only those). kubectl sets `metadata.namespace: default`
 * on objects without a namespace (see `asKubectlCreates`). Throws with kubectl's message when it
 * refuses the file.
 */
export async function readWithKubectl(text: string, kinds: readonly Kind[]): Promise<JsonObject[]> {
  const dir = mkdtempSync(join(tmpdir(), "bylaw-kubectl-"));
  const server = discoveryStub(kinds);
  try {
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const { port } = server.address() as AddressInfo;
    const file = join(dir, "objects.yaml");
    const kubeconfig = join(dir, "kubeconfig");
    writeFileSync(file, text);
    writeFileSync(kubeconfig, "apiVersion: v1\nkind: Config\n");
    const args = [
      "create",
      "--dry-run=client",
      "--validate=false",
      "-o",
      "json",
      "-f",
      file,
      `--server=http://127.0.0.1:${port}`,
      `--cache-dir=${join(dir, "cache")}`,
    ];
    const out = await new Promise<string>((done, fail) => {
      execFile(
        "kubectl",
        args,
        { encoding: "utf8", maxBuffer: 1024 * 1024 * 1024, env: { ...process.env, KUBECONFIG: kubeconfig } },
        (error, stdout, stderr) => {
          if (error !== null) fail(new Error(`kubectl refused the YAML: ${error.message}\n${stderr.slice(0, 4000)}`));
          else done(stdout);
        },
      );
    });
    return splitJsonObjects(out);
  } finally {
    await new Promise<void>((closed) => server.close(() => closed()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The object kubectl prints for `value`: namespaced kinds get the default namespace. */
export function asKubectlCreates(value: JsonObject): JsonObject {
  const meta = isObject(value["metadata"]) ? value["metadata"] : {};
  return typeof meta["namespace"] === "string" && meta["namespace"] !== ""
    ? value
    : { ...value, metadata: { ...meta, namespace: "default" } };
}

/** API discovery (legacy JSON form) for the given kinds, every one namespaced; 404 for anything else. */
function discoveryStub(kinds: readonly Kind[]): Server {
  const byGroupVersion = new Map<string, Set<string>>();
  for (const k of kinds) byGroupVersion.set(k.apiVersion, (byGroupVersion.get(k.apiVersion) ?? new Set()).add(k.kind));
  const resources = (gv: string): unknown => ({
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: gv,
    resources: [...(byGroupVersion.get(gv) ?? [])].map((kind) => ({
      name: `${kind.toLowerCase()}s`,
      singularName: kind.toLowerCase(),
      namespaced: true,
      kind,
      verbs: ["create", "get"],
    })),
  });
  const groups = [...byGroupVersion.keys()]
    .filter((gv) => gv.includes("/"))
    .map((gv) => {
      const [group, version] = gv.split("/") as [string, string];
      return {
        name: group,
        versions: [{ groupVersion: gv, version }],
        preferredVersion: { groupVersion: gv, version },
      };
    });
  return createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    let body: unknown;
    if (path === "/version") body = { major: "1", minor: "32", gitVersion: "v1.32.0" };
    else if (path === "/api")
      body = {
        kind: "APIVersions",
        versions: ["v1"],
        serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1" }],
      };
    else if (path === "/apis") body = { kind: "APIGroupList", apiVersion: "v1", groups };
    else if (path === "/api/v1") body = resources("v1");
    else if (path.startsWith("/apis/") && byGroupVersion.has(path.slice(6))) body = resources(path.slice(6));
    if (body === undefined) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"kind":"Status","status":"Failure","code":404}');
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
}

/** kubectl prints one indented JSON object per document, each starting with `{` alone on a line. */
function splitJsonObjects(out: string): JsonObject[] {
  return out
    .split(/\n(?=\{\n)/)
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => {
      const v: unknown = JSON.parse(chunk);
      if (!isObject(v)) throw new Error(`kubectl printed a non-object: ${chunk.slice(0, 200)}`);
      return v;
    });
}
