import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { createMetricsServer } from "./metrics-server.js";

function call(
  port: number,
  method: string,
  path: string,
): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, agent: false }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"], body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("createMetricsServer", () => {
  test("serves GET /metrics as text, refuses other paths and methods, survives a failing render", async () => {
    let fail = false;
    const errors: unknown[] = [];
    const server = createMetricsServer({
      host: "127.0.0.1",
      port: 0,
      render: async () => {
        if (fail) throw new Error("registry broke");
        return {
          contentType: "text/plain; version=0.0.4; charset=utf-8",
          body: "kyverno_admission_requests_total 3\n",
        };
      },
      onError: (e) => errors.push(e),
    });
    const { port } = await server.listen();
    try {
      assert.deepEqual(await call(port, "GET", "/metrics"), {
        status: 200,
        type: "text/plain; version=0.0.4; charset=utf-8",
        body: "kyverno_admission_requests_total 3\n",
      });
      assert.equal((await call(port, "GET", "/")).status, 404);
      assert.equal((await call(port, "POST", "/metrics")).status, 405);
      fail = true;
      const broken = await call(port, "GET", "/metrics");
      assert.equal(broken.status, 500);
      assert.match(broken.body, /registry broke/);
      assert.equal(errors.length, 1);
      fail = false;
      assert.equal((await call(port, "GET", "/metrics")).status, 200);
    } finally {
      await server.close();
    }
  });

  test("scrapes that arrive during a render share it: one render for five parallel scrapes", async () => {
    let renders = 0;
    const server = createMetricsServer({
      host: "127.0.0.1",
      port: 0,
      render: async () => {
        renders++;
        await new Promise((r) => setTimeout(r, 100));
        return { contentType: "text/plain", body: `render ${renders}\n` };
      },
    });
    const { port } = await server.listen();
    try {
      const replies = await Promise.all(Array.from({ length: 5 }, () => call(port, "GET", "/metrics")));
      assert.deepEqual(
        replies.map((r) => r.body),
        Array.from({ length: 5 }, () => "render 1\n"),
      );
      assert.equal(renders, 1);
      assert.equal((await call(port, "GET", "/metrics")).body, "render 2\n", "a later scrape renders afresh");
    } finally {
      await server.close();
    }
  });

  test("listen() rejects when the port is taken", async () => {
    const one = createMetricsServer({
      host: "127.0.0.1",
      port: 0,
      render: async () => ({ contentType: "text/plain", body: "" }),
    });
    const { port } = await one.listen();
    const two = createMetricsServer({
      host: "127.0.0.1",
      port,
      render: async () => ({ contentType: "text/plain", body: "" }),
    });
    try {
      await assert.rejects(two.listen(), /EADDRINUSE/);
    } finally {
      await one.close();
    }
  });
});
