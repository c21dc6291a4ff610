/** The hostile memory workloads of issue 14, each bounded in count and time, against one loopback port. */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { Agent, request } from "node:https";
import { connect, type TLSSocket } from "node:tls";

export type Statuses = Record<string, number>;

/** An UPDATE AdmissionReview of a ConfigMap whose object and oldObject are each about `mib`/2 MiB. */
export function bigUpdate(mib: number): string {
  const data: Record<string, string> = {};
  const perObject = (mib * 1e6) / 2;
  for (let i = 0; i * 68 < perObject; i++) data[`key-${i}`] = `${"v".repeat(48)}${i}`;
  const object = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "big", namespace: "shop" }, data };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: "00000000-0000-0000-0000-000000000001",
      kind: { group: "", version: "v1", kind: "ConfigMap" },
      resource: { group: "", version: "v1", resource: "configmaps" },
      namespace: "shop",
      name: "big",
      operation: "UPDATE",
      userInfo: { username: "dev" },
      object,
      oldObject: object,
    },
  });
}

export function podReview(i: number): string {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `web-${i}`, namespace: "shop" },
    spec: { containers: [{ name: "app", image: "registry.example.com/web:1.0" }] },
  };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: {
      uid: `u-${i}`,
      kind: { group: "", version: "v1", kind: "Pod" },
      namespace: "shop",
      name: pod.metadata.name,
      operation: "CREATE",
      userInfo: { username: "dev" },
      object: pod,
    },
  });
}

function post(port: number, agent: Agent, body: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/validate/fail",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(String(res.statusCode)));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
    req.end(body);
  });
}

/** `concurrency` clients each sending `body` back to back for `seconds`. */
export async function concurrentPosts(
  port: number,
  body: string,
  concurrency: number,
  seconds: number,
): Promise<Statuses> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, rejectUnauthorized: false });
  const statuses: Statuses = {};
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const s = await post(port, agent, body);
        statuses[s] = (statuses[s] ?? 0) + 1;
      }
    }),
  );
  agent.destroy();
  return statuses;
}

/** `wrk -c<connections>` POSTing a Pod review; its summary lines. */
export function wrk(port: number, connections: number, seconds: number, scriptPath: string): Promise<string> {
  writeFileSync(
    scriptPath,
    `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [[${podReview(1)}]]\n`,
  );
  return new Promise((resolve) => {
    const child = spawn(
      "wrk",
      ["-t2", `-c${connections}`, `-d${seconds}s`, "-s", scriptPath, `https://127.0.0.1:${port}/validate/fail`],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.on("error", (e) => resolve(`wrk failed: ${e.message}`));
    child.on("exit", () =>
      resolve(
        out
          .split("\n")
          .filter((l) => /Requests\/sec|requests in|Non-2xx|Socket errors/.test(l))
          .map((l) => l.trim())
          .join("; "),
      ),
    );
  });
}

function open(port: number): Promise<TLSSocket | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, rejectUnauthorized: false });
    socket.once("secureConnect", () => resolve(socket));
    socket.once("error", () => resolve(undefined));
    socket.once("close", () => resolve(undefined));
  });
}

/** `count` TLS connections that each make one keep-alive request and then sit idle for `seconds`. */
export async function idleKeepAlive(port: number, count: number, seconds: number): Promise<string> {
  const sockets: TLSSocket[] = [];
  let answered = 0;
  for (let i = 0; i < count; i += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, count - i) }, () => open(port)));
    for (const s of batch) {
      if (s === undefined) continue;
      sockets.push(s);
      s.on("error", () => undefined);
      s.once("data", () => answered++);
      s.write("GET /health/readiness HTTP/1.1\r\nHost: x\r\n\r\n");
    }
  }
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const alive = sockets.filter((s) => !s.destroyed && s.readyState === "open").length;
  for (const s of sockets) s.destroy();
  return `${sockets.length} of ${count} connected, ${answered} answered, ${alive} still open after ${seconds} s`;
}

/** `clients` connections that each write `perClient` pipelined reviews and never read an answer. */
export async function pipelineNoRead(
  port: number,
  clients: number,
  perClient: number,
  seconds: number,
): Promise<string> {
  const request = (i: number): string => {
    const body = podReview(i);
    return `POST /validate/fail HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  const chunk = Array.from({ length: perClient }, (_, i) => request(i)).join("");
  const sockets = (await Promise.all(Array.from({ length: clients }, () => open(port)))).filter(
    (s): s is TLSSocket => s !== undefined,
  );
  let cut = 0;
  for (const s of sockets) {
    s.on("error", () => undefined);
    s.once("close", () => cut++);
    s.pause(); // never read
    s.write(chunk);
  }
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const cutByServer = cut;
  for (const s of sockets) s.destroy();
  return `${sockets.length} clients × ${perClient} pipelined reviews (${((chunk.length * sockets.length) / 1024 / 1024).toFixed(0)} MiB offered); ${cutByServer} connections cut by the server`;
}
