/**
 * `bylaw serve`'s bounds end to end: the hostile label workloads of issue 14 over HTTPS leave a
 * `/metrics` scrape that succeeds and stays under 5 MB; refused flag values exit 2 naming the flag.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { serveCommand } from "../../src/cli/commands/serve/command.js";
import { recordingIo } from "../support/fake-io.js";
import { tempTree } from "../support/temp-dir.js";
import { podReview, serveAroundTests, startServe } from "./serve-harness.js";
import { pod } from "../support/builders.js";
import { policyFixture } from "../support/policy-fixtures.js";

const policy = policyFixture("require-team").replace("Enforce", "Audit");

function numberedPodReview(i: number, namespace: string): string {
  const name = `p${i}`;
  const object = pod({ name, namespace, containers: [{ name: "c", image: "nginx:1" }] });
  return podReview({ uid: `u-${i}`, namespace, name, object });
}

describe("bylaw serve: /metrics after hostile labels", () => {
  const server = serveAroundTests(["--policies", tempTree({ "p.yaml": policy })]);

  test(
    "50 reviews with a 100 KB namespace, then 1,000 namespaces: the scrape succeeds, under 5 MB, with every review counted",
    { timeout: 120_000 },
    async () => {
      const long = "n".repeat(100_000);
      const send = async (count: number, namespace: (i: number) => string): Promise<void> => {
        let next = 0;
        await Promise.all(
          Array.from({ length: 8 }, async () => {
            while (next < count) {
              const i = next++;
              assert.equal((await server().post("/validate/fail", numberedPodReview(i, namespace(i)))).status, 200);
            }
          }),
        );
      };
      await send(50, (i) => `${i}-${long}`);
      await send(1_000, (i) => `ns-${i}`);
      const text = await server().metrics();
      assert.ok(Buffer.byteLength(text) < 5 * 1024 * 1024, `${Buffer.byteLength(text)} bytes`);
      assert.ok(!text.includes(long.slice(0, 200)), "no 100 KB label");
      assert.match(text, /resource_namespace="_overflow"/);
      const requests = [...text.matchAll(/^kyverno_admission_requests_total\{[^}]*\} (\d+)$/gm)].reduce(
        (a, m) => a + Number(m[1]),
        0,
      );
      assert.equal(requests, 1_050);
    },
  );
});

describe("bylaw serve: shedding under memory pressure", () => {
  test(
    "with --memory-limit below what the process holds, reviews are answered 503 and counted; health still answers",
    { timeout: 60_000 },
    async () => {
      const server = await startServe(["--policies", tempTree({ "p.yaml": policy }), "--memory-limit", "1Mi"]);
      try {
        let r = await server.post("/validate/fail", numberedPodReview(1, "shop"));
        for (let i = 0; i < 20 && r.status !== 503; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100)); // the first sample comes within 250 ms
          r = await server.post("/validate/fail", numberedPodReview(1, "shop"));
        }
        assert.equal(r.status, 503);
        assert.match(
          (r.json as { error: string }).error,
          /shedding load \((heap|resident memory) \d+ MiB of (the )?1 MiB/,
        );
        assert.equal((await server.get("/health/liveness")).status, 200);
        assert.match(await server.metrics(), /^bylaw_admission_shed_total\{http_url="\/validate\/fail"\} [1-9]\d*$/m);
      } finally {
        assert.equal(await server.stop(), 0);
      }
    },
  );
});

describe("bylaw serve: bound and TLS flags", () => {
  const refused: [string[], RegExp][] = [
    [["--tls-min-version", "1.1"], /--tls-min-version must be 1\.2 or 1\.3/],
    [["--tls-cipher-suites", "ECDHE-RSA-AES128-GCM-SHA256,NOPE"], /--tls-cipher-suites: "NOPE" is not a cipher suite/],
    [["--max-connections", "0"], /--max-connections must be a positive whole number/],
    [["--max-inflight-bytes", "lots"], /--max-inflight-bytes must be a size in bytes/],
    [["--client-ca", "/nonexistent/ca.crt"], /--client-ca \/nonexistent\/ca\.crt: /],
  ];
  for (const [args, message] of refused) {
    test(`${args.join(" ")} exits 2 and says why`, async () => {
      const io = recordingIo();
      const code = await serveCommand(
        ["--policies", tempTree({ "p.yaml": policy }), "--self-signed", "--dns-name", "localhost", ...args],
        io,
      );
      assert.equal(code, 2);
      assert.match(io.stderr.join("\n"), message);
    });
  }
});
