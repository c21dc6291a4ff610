/**
 * Where `bylaw serve` finds its API server: `--kubeconfig FILE`, else `KUBECONFIG` (a `:`-separated
 * list, merged as kubectl does: the first file to set a name wins), else in-cluster (the Pod's
 * ServiceAccount token, re-read as it rotates, and CA). Users authenticate with a bearer token
 * (`token`, `tokenFile`) or a client certificate (`client-certificate[-data]`, `client-key[-data]`).
 * exec plugins, auth-provider and basic auth are refused with a message naming the field.
 */
import { readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { parse } from "yaml";
import { err, ok, type Result, textOf } from "../engine/index.js";
import type { KubeConnection } from "./types.js";

type Named = { name?: unknown; cluster?: unknown; user?: unknown; context?: unknown };
type Doc = { "current-context"?: unknown; clusters?: Named[]; users?: Named[]; contexts?: Named[] };
type Field = Record<string, unknown>;

export const IN_CLUSTER_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

interface ConfigSources {
  readonly kubeconfigFlag?: string;
  /** A context to use instead of the kubeconfig's current-context (`--context`). */
  readonly context?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Milliseconds, for the token file's re-read period. */
  readonly now: () => number;
  /** Defaults to IN_CLUSTER_DIR (tests point it elsewhere). */
  readonly serviceAccountDir?: string;
}

/** The connection: the flag, else KUBECONFIG, else in-cluster; an error says which was tried and why it failed. */
export function resolveConnection(src: ConfigSources): Result<KubeConnection> {
  if (src.kubeconfigFlag !== undefined) return fromKubeconfigFiles([src.kubeconfigFlag], src.now, src.context);
  const env = src.env["KUBECONFIG"];
  if (env !== undefined && env !== "")
    return fromKubeconfigFiles(
      env.split(":").filter((p) => p !== ""),
      src.now,
      src.context,
    );
  return inCluster(src);
}

function inCluster(src: ConfigSources): Result<KubeConnection> {
  const host = src.env["KUBERNETES_SERVICE_HOST"];
  const port = src.env["KUBERNETES_SERVICE_PORT"];
  if (host === undefined || host === "" || port === undefined || port === "") {
    return err(
      "kube-config",
      "no Kubernetes API: pass --kubeconfig FILE, set KUBECONFIG, or run in a Pod (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set)",
    );
  }
  const dir = src.serviceAccountDir ?? IN_CLUSTER_DIR;
  let ca: string;
  try {
    ca = readFileSync(join(dir, "ca.crt"), "utf8");
  } catch (e) {
    return err("kube-config", `in-cluster: cannot read the CA ${join(dir, "ca.crt")}: ${(e as Error).message}`);
  }
  const token = fileToken(join(dir, "token"), src.now);
  if (token() === undefined)
    return err("kube-config", `in-cluster: cannot read the ServiceAccount token ${join(dir, "token")}`);
  const h = host.includes(":") ? `[${host}]` : host;
  return ok({ server: `https://${h}:${port}`, ca, token, origin: "in-cluster" });
}

/**
 * A token read from a file, re-read when it is a minute old or the file changed (kubelet rotates
 * projected ServiceAccount tokens in place), as client-go does. A read that fails keeps the last token.
 */
export function fileToken(path: string, now: () => number, periodMs = 60_000): () => string | undefined {
  let token: string | undefined;
  let readAt = -Infinity;
  let mtime = -1;
  return () => {
    const t = now();
    let changed = false;
    try {
      const m = statSync(path).mtimeMs;
      changed = m !== mtime;
      mtime = m;
    } catch {
      // unreadable now: keep the last token
    }
    if (token === undefined || changed || t - readAt >= periodMs) {
      try {
        const text = readFileSync(path, "utf8").trim();
        if (text !== "") token = text;
        readAt = t;
      } catch {
        // keep the last token
      }
    }
    return token;
  };
}

function fromKubeconfigFiles(
  paths: readonly string[],
  now: () => number,
  contextFlag?: string,
): Result<KubeConnection> {
  const docs: { doc: Doc; dir: string; path: string }[] = [];
  for (const path of paths) {
    let doc: unknown;
    try {
      doc = parse(readFileSync(path, "utf8"));
    } catch (e) {
      return err("kube-config", `kubeconfig ${path}: ${(e as Error).message}`);
    }
    if (doc !== null && typeof doc === "object") docs.push({ doc: doc, dir: dirname(path), path });
  }
  const first = <T>(pick: (d: Doc) => T | undefined): { value: T; dir: string } | undefined => {
    for (const d of docs) {
      const v = pick(d.doc);
      if (v !== undefined) return { value: v, dir: d.dir };
    }
    return undefined;
  };
  const where = `kubeconfig ${paths.join(":")}`;
  const current =
    contextFlag !== undefined
      ? { value: contextFlag }
      : first((d) =>
          typeof d["current-context"] === "string" && d["current-context"] !== "" ? d["current-context"] : undefined,
        );
  if (current === undefined) return err("kube-config", `${where}: no current-context (pick one with --context)`);
  const named = (list: keyof Doc, name: string, key: "cluster" | "user" | "context") =>
    first((d) => {
      const entry = (Array.isArray(d[list]) ? (d[list] as Named[]) : []).find((e) => e?.name === name);
      const body = entry?.[key];
      return body !== null && typeof body === "object" ? (body as Field) : undefined;
    });
  const context = named("contexts", current.value, "context");
  if (context === undefined) return err("kube-config", `${where}: context "${current.value}" is not defined`);
  const clusterName = textOf(context.value["cluster"] ?? "");
  const userName = textOf(context.value["user"] ?? "");
  const cluster = named("clusters", clusterName, "cluster");
  if (cluster === undefined)
    return err("kube-config", `${where}: cluster "${clusterName}" (context "${current.value}") is not defined`);
  const user = named("users", userName, "user");
  const origin = `${where}, context ${current.value}`;
  const server = cluster.value["server"];
  if (typeof server !== "string" || !server.startsWith("https://"))
    return err(
      "kube-config",
      `${origin}: cluster "${clusterName}" needs an https:// server (got ${JSON.stringify(server)})`,
    );
  const c = material(cluster.value, "certificate-authority", cluster.dir, origin);
  if (!c.ok) return c;
  const u = user === undefined ? ok({}) : userMaterial(user.value, user.dir, origin, now);
  if (!u.ok) return u;
  return ok({
    server: server.replace(/\/+$/, ""),
    ...(c.value.data !== undefined ? { ca: c.value.data } : {}),
    ...(cluster.value["insecure-skip-tls-verify"] === true ? { insecureSkipTlsVerify: true } : {}),
    ...(typeof cluster.value["tls-server-name"] === "string"
      ? { tlsServerName: cluster.value["tls-server-name"] }
      : {}),
    ...u.value,
    origin,
  });
}

type Material = { cert?: string; key?: string; token?: () => string | undefined; data?: string };

function userMaterial(user: Field, dir: string, origin: string, now: () => number): Result<Material> {
  for (const unsupported of ["exec", "auth-provider", "username", "password"]) {
    if (user[unsupported] !== undefined)
      return err(
        "kube-config",
        `${origin}: user field "${unsupported}" is not supported by Bylaw; use a token, tokenFile or client certificate`,
      );
  }
  const cert = material(user, "client-certificate", dir, origin);
  if (!cert.ok) return cert;
  const key = material(user, "client-key", dir, origin);
  if (!key.ok) return key;
  if ((cert.value.data === undefined) !== (key.value.data === undefined))
    return err("kube-config", `${origin}: a client certificate needs both client-certificate and client-key`);
  const out: Material = {};
  if (cert.value.data !== undefined && key.value.data !== undefined) {
    out.cert = cert.value.data;
    out.key = key.value.data;
  }
  if (typeof user["token"] === "string" && user["token"] !== "") {
    const token = user["token"];
    out.token = () => token;
  } else if (typeof user["tokenFile"] === "string") {
    const path = resolvePath(user["tokenFile"], dir);
    const token = fileToken(path, now);
    if (token() === undefined) return err("kube-config", `${origin}: cannot read tokenFile ${path}`);
    out.token = token;
  }
  return ok(out);
}

/** `<field>-data` (base64) or `<field>` (a file, relative to the kubeconfig's folder). */
function material(obj: Field, field: string, dir: string, origin: string): Result<{ data?: string }> {
  const inline = obj[`${field}-data`];
  if (typeof inline === "string" && inline !== "") return ok({ data: Buffer.from(inline, "base64").toString("utf8") });
  const file = obj[field];
  if (typeof file !== "string" || file === "") return ok({});
  const path = resolvePath(file, dir);
  try {
    return ok({ data: readFileSync(path, "utf8") });
  } catch (e) {
    return err("kube-config", `${origin}: cannot read ${field} ${path}: ${(e as Error).message}`);
  }
}

function resolvePath(p: string, dir: string): string {
  return isAbsolute(p) ? p : join(dir, p);
}
