/**
 * The Dockerfile (no image builder runs here): its shape is checked (multi-stage, Node 24 LTS,
 * distroless runtime, non-root user, the image deploy/ and the chart run), and its install step,
 * scripts/image/stage.mjs, is run from this checkout into a staging folder. `bylaw serve` is then
 * started from that folder as the image starts it (its ENTRYPOINT, the Deployment's arguments with
 * those that need an API server swapped for named offline equivalents, the user 65532 when the tests
 * run as root, the staged folder owned by another user and so read-only to it) and answers
 * /health/readiness over HTTPS; nothing in the folder changed. The Deployment's exact arguments run
 * against a real API server in test/cluster/deploy-rbac.cluster-test.ts.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { get } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { parse } from "yaml";
import { podOf } from "./manifest-checks.js";
import { at, kubectlMissing, list, render, repoRoot } from "./render.js";
import { parseDockerfile, replayStage } from "./dockerfile.js";

const root = repoRoot();
const dockerfile = readFileSync(join(root, "Dockerfile"), "utf8");
const parsed = parseDockerfile(dockerfile);
const SKIP = kubectlMissing();

/** Every file under a folder with its size and modification time. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const entry of readdirSync(d)) {
      const path = join(d, entry);
      const s = statSync(path);
      if (s.isDirectory()) walk(path);
      out.set(path, `${s.size} ${s.mtimeMs} ${s.mode}`);
    }
  };
  walk(dir);
  return out;
}

function httpsGet(port: number, path: string, ca: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = get({ host: "127.0.0.1", port, path, ca, servername: "localhost", timeout: 2000 }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("timed out")));
  });
}

describe("Dockerfile", () => {
  const { args, stages: all } = parsed;
  const build = all[0];
  const runtime = all[all.length - 1];

  test("multi-stage: a Node 24 LTS build stage, a distroless runtime with the same node binary", () => {
    assert.ok(all.length >= 2 && build !== undefined && runtime !== undefined, "at least two stages");
    const version = args.get("NODE_VERSION") ?? "";
    assert.match(version, /^24\.\d+\.\d+$/, "Node 24 (the LTS line), pinned to a release");
    assert.equal(build.from, `node:${version}-bookworm-slim`);
    assert.match(runtime.from, /^gcr\.io\/distroless\/cc-debian12:nonroot$/);
    assert.ok(
      runtime.lines.includes(`COPY --from=${build.name ?? ""} /usr/local/bin/node /nodejs/bin/node`),
      "the runtime runs the build stage's node",
    );
    assert.ok(runtime.lines.includes(`COPY --from=${build.name ?? ""} /opt/bylaw /opt/bylaw`));
    assert.equal(
      runtime.lines.filter((l) => /^RUN\b/.test(l)).length,
      0,
      "nothing runs in the runtime stage (it has no shell)",
    );
  });

  test("the build stage installs with the lockfile, builds, and stages with scripts/image/stage.mjs", () => {
    const runs = (build?.lines ?? []).filter((l) => l.startsWith("RUN "));
    assert.deepEqual(runs, [
      "RUN npm ci --ignore-scripts --no-audit --no-fund",
      "RUN npm run build",
      "RUN node scripts/image/stage.mjs . /opt/bylaw",
    ]);
  });

  test("non-root: the user is the Deployment's 65532, the entrypoint is the bylaw CLI", { skip: SKIP ?? false }, () => {
    assert.ok(runtime?.lines.includes("USER 65532:65532"));
    const entrypoint = runtime?.lines.find((l) => l.startsWith("ENTRYPOINT "));
    assert.deepEqual(JSON.parse(entrypoint?.slice("ENTRYPOINT ".length) ?? "null"), [
      "/nodejs/bin/node",
      "/opt/bylaw/bin/bylaw.js",
    ]);
    const { pod, container } = podOf(render(join(root, "deploy", "base")));
    assert.equal(at(pod, "securityContext", "runAsUser"), 65532);
    assert.equal(at(pod, "securityContext", "runAsGroup"), 65532);
    assert.equal(at(container, "securityContext", "readOnlyRootFilesystem"), true);
    assert.equal(at(container, "command"), undefined, "the Deployment keeps the image's entrypoint");
  });

  test("deploy/ and the chart run the image this Dockerfile builds", { skip: SKIP ?? false }, () => {
    const tag = /docker build -t (\S+):\S+ \./.exec(dockerfile)?.[1];
    assert.equal(tag, "ghcr.io/bylaw/bylaw");
    assert.match(String(at(podOf(render(join(root, "deploy", "base"))).container, "image")), new RegExp(`^${tag}:`));
    const values = parse(readFileSync(join(root, "charts", "bylaw", "values.yaml"), "utf8")) as {
      image?: { repository?: string };
    };
    assert.equal(values.image?.repository, tag);
  });

  test("deploy/ and the chart name the release's tag, never :latest", { skip: SKIP ?? false }, () => {
    const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
    assert.equal(/docker build -t \S+:(\S+) \./.exec(dockerfile)?.[1], version, "the Dockerfile's build command");
    assert.equal(
      String(at(podOf(render(join(root, "deploy", "base"))).container, "image")),
      `ghcr.io/bylaw/bylaw:${version}`,
      "deploy/base",
    );
    const values = parse(readFileSync(join(root, "charts", "bylaw", "values.yaml"), "utf8")) as {
      image?: { tag?: string };
    };
    assert.equal(values.image?.tag, version, "the chart's default image.tag");
    const chart = parse(readFileSync(join(root, "charts", "bylaw", "Chart.yaml"), "utf8")) as {
      version?: string;
      appVersion?: string;
    };
    assert.equal(chart.appVersion, version, "Chart.yaml appVersion");
    assert.equal(chart.version, version, "Chart.yaml version");
  });
});

describe(
  "the Dockerfile's build stage replayed in a clean folder, and `bylaw serve` started from what it staged",
  {
    skip: SKIP ?? false,
  },
  () => {
    const work = mkdtempSync(join(tmpdir(), "bylaw-image-"));
    chmodSync(work, 0o755); // the image's user (65532) reads it; it owns nothing in it
    const fsRoot = join(work, "image");
    let child: ChildProcess | undefined;
    after(() => {
      child?.kill("SIGKILL");
      rmSync(work, { recursive: true, force: true });
    });

    test("every COPY and RUN line of the build stage, in order, from the build context .dockerignore leaves", () => {
      const build = parsed.stages[0];
      assert.ok(build !== undefined);
      const replay = replayStage({ root, stage: build, fsRoot, timeoutMs: 600_000 });
      assert.deepEqual(replay.done, build.lines, "each instruction ran");
      assert.ok(existsSync(join(fsRoot, "opt", "bylaw", "bin", "bylaw.js")), "the runtime was staged in /opt/bylaw");
    });

    test("scripts/image/stage.mjs staged the package files and production dependencies, and `bylaw serve` starts from them as the image starts it", async () => {
      const stage = join(fsRoot, "opt", "bylaw");
      assert.ok(existsSync(stage), "the build stage's replay staged the runtime (the test before)");
      const installed = readdirSync(join(stage, "node_modules"));
      for (const dep of Object.keys(
        (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies: Record<string, string> })
          .dependencies,
      ))
        assert.ok(installed.includes(dep.split("/")[0] ?? dep), `${dep} is installed`);
      for (const dev of ["typescript", "eslint", "@types", "autocannon"])
        assert.ok(!installed.includes(dev), `no dev dependency (${dev})`);
      assert.deepEqual(
        readdirSync(join(stage, "dist")).sort(),
        ["bundle", "src"],
        "the bundled CLI and the library; no tests or benchmarks",
      );
      assert.equal(
        readdirSync(join(stage, "dist", "src"), { recursive: true }).filter((f) => String(f).includes(".test.")).length,
        0,
      );

      // The Deployment's arguments. Those that need the API server (test/cluster/deploy-rbac.cluster-test.ts runs them
      // against a real one) become their offline equivalents, each named here; every other argument is the Deployment's.
      const deployArgs = list(at(podOf(render(join(root, "deploy", "base"))).container, "args")).map(String);
      const work2 = join(work, "offline");
      mkdirSync(join(work2, "policies"), { recursive: true });
      writeFileSync(
        join(work2, "policies", "disallow-latest-tag.yaml"),
        readFileSync(join(stage, "examples", "policies", "disallow-latest-tag.yaml")),
      );
      const OFFLINE: Record<string, { readonly takes: number; readonly becomes: readonly string[] }> = {
        "--cluster": { takes: 0, becomes: ["--policies", join(work2, "policies")] },
        "--register": { takes: 0, becomes: [] },
        "--service-name": { takes: 1, becomes: [] },
        "--service-namespace": { takes: 1, becomes: [] },
        "--leader-elect": { takes: 0, becomes: [] },
        "--tls-secret": { takes: 1, becomes: ["--self-signed", "--dns-name", "localhost"] },
        "--port": { takes: 1, becomes: ["--port", "0"] },
        "--metrics-port": { takes: 1, becomes: ["--metrics-port", "0"] },
      };
      const args: string[] = [];
      for (let i = 0; i < deployArgs.length; i++) {
        const arg = deployArgs[i] ?? "";
        const swap = OFFLINE[arg];
        if (swap === undefined) args.push(arg);
        else {
          args.push(...swap.becomes);
          i += swap.takes;
        }
      }
      assert.deepEqual(
        Object.keys(OFFLINE).filter((f) => !deployArgs.includes(f)),
        [],
        "every swapped flag is the Deployment's",
      );
      assert.equal(args[0], "serve");

      const before = snapshot(stage);
      const asImageUser =
        process.getuid?.() === 0 ? ["setpriv", "--reuid=65532", "--regid=65532", "--clear-groups", "--"] : [];
      // As the image copies the build stage's node to /nodejs/bin/node: the running node, wherever it lives.
      const node = join(work, "nodejs", "bin", "node");
      mkdirSync(dirname(node), { recursive: true });
      copyFileSync(process.execPath, node);
      const [command, ...rest] = [
        ...asImageUser,
        node,
        join(stage, "bin", "bylaw.js"),
        ...args,
        "--host",
        "127.0.0.1",
        "--log-level",
        "info",
      ];
      child = spawn(command ?? "", rest, {
        cwd: stage,
        env: { PATH: process.env["PATH"] ?? "", NODE_ENV: "production", HOME: "/nonexistent" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout?.on("data", (c: Buffer) => (output += c.toString("utf8")));
      child.stderr?.on("data", (c: Buffer) => (output += c.toString("utf8")));
      const port = await new Promise<number>((resolve, reject) => {
        const deadline = Date.now() + 30_000;
        const timer = setInterval(() => {
          const m = /listening on https:\/\/[^:]+:(\d+)/.exec(output);
          if (m !== null) resolve(Number(m[1]));
          else if (child?.exitCode !== null)
            reject(new Error(`bylaw serve exited (${String(child?.exitCode)}):\n${output}`));
          else if (Date.now() > deadline) reject(new Error(`bylaw serve did not start in 30 s:\n${output}`));
          else return;
          clearInterval(timer);
        }, 50);
      });
      const caBundle = /caBundle: (\S+)/.exec(output)?.[1];
      assert.ok(caBundle !== undefined, `the self-signed caBundle is printed:\n${output}`);
      const ca = Buffer.from(caBundle, "base64").toString("utf8");
      let ready = await httpsGet(port, "/health/readiness", ca);
      for (let i = 0; i < 100 && ready.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        ready = await httpsGet(port, "/health/readiness", ca);
      }
      assert.equal(ready.status, 200, `readiness: ${ready.text}\n${output}`);
      child.kill("SIGTERM");
      await new Promise((r) => child?.once("exit", r));
      assert.deepEqual(
        snapshot(stage),
        before,
        "bylaw serve wrote nothing under its install folder (a read-only root filesystem suffices)",
      );
    });
  },
);
