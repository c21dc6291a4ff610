/**
 * The bundled CLI (tools/bundle.mjs, docs/adr/0014-bundled-cli.md): bin/bylaw.js runs dist/bundle,
 * where each command is a chunk of its own loaded when it runs (dist/bundle/esm/, and each chunk as
 * a CommonJS script in dist/bundle/cjs/, run through V8's code cache), and the worker entries sit
 * where the chunks that start them look for them.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { packageRoot } from "../support/npm-pack.js";
import { tempTree } from "../support/temp-dir.js";

const root = packageRoot();
const metaPath = join(root, "dist", "bundle.meta.json");

interface Output {
  readonly imports: readonly { readonly path: string; readonly kind: string; readonly external?: boolean }[];
  readonly inputs: Readonly<Record<string, unknown>>;
}
type Meta = { readonly outputs: Readonly<Record<string, Output>> };

/** The modules an output loads before it runs: its own and those of every output it imports statically. */
function staticClosure(meta: Meta, start: string): Set<string> {
  const seen = new Set<string>();
  const modules = new Set<string>();
  const visit = (out: string): void => {
    if (seen.has(out)) return;
    seen.add(out);
    const o = meta.outputs[out];
    assert.ok(o !== undefined, `no output ${out}`);
    for (const input of Object.keys(o.inputs)) modules.add(input);
    for (const i of o.imports) if (i.kind === "import-statement" && i.external !== true) visit(i.path);
  };
  visit(start);
  return modules;
}

const outputHolding = (meta: Meta, module: string): string => {
  const found = Object.entries(meta.outputs).find(([, o]) => module in o.inputs);
  assert.ok(found !== undefined, `no output holds ${module}`);
  return found[0];
};

describe("the bundled CLI", { skip: existsSync(metaPath) ? false : "dist/bundle is not built" }, () => {
  const meta = JSON.parse(existsSync(metaPath) ? readFileSync(metaPath, "utf8") : "{}") as Meta;

  test("bin/bylaw.js runs the bundle", () => {
    assert.match(readFileSync(join(root, "bin", "bylaw.js"), "utf8"), /from "\.\.\/dist\/bundle\/main\.js"/);
  });

  test("`bylaw` alone loads no command: each command is its own chunk, loaded when it runs", () => {
    const loaded = [...staticClosure(meta, "dist/bundle/esm/main.js")];
    assert.deepEqual(
      loaded.filter((m) => /^dist\/src\/(cli\/commands|server|kube|engine)\//.test(m) || m.startsWith("node_modules/")),
      [],
    );
  });

  test("`bylaw test` loads neither the webhook server nor the cluster client", () => {
    const loaded = [...staticClosure(meta, outputHolding(meta, "dist/src/cli/commands/test/command.js"))];
    assert.ok(loaded.includes("dist/src/cli/test-suite/run-suite.js"));
    assert.deepEqual(
      loaded.filter(
        (m) =>
          /^dist\/src\/(server|kube|cli\/commands\/(serve|apply))\//.test(m) ||
          /node_modules\/(pino|prom-client)\//.test(m),
      ),
      [],
    );
  });

  test("`bylaw apply` loads the cluster client (src/kube) only with --cluster: cluster-input is a chunk of its own", () => {
    const loaded = [...staticClosure(meta, outputHolding(meta, "dist/src/cli/commands/apply/command.js"))];
    assert.deepEqual(
      loaded.filter((m) => /^dist\/src\/(server|kube)\//.test(m) || m.endsWith("apply/cluster-input.js")),
      [],
    );
    const cluster = [...staticClosure(meta, outputHolding(meta, "dist/src/cli/commands/apply/cluster-input.js"))];
    assert.ok(cluster.includes("dist/src/kube/cluster-reads.js"));
  });

  test("`bylaw serve` loads the report UI and its browser pages only with --ui-port: ui-server is a chunk of its own", () => {
    const loaded = [...staticClosure(meta, outputHolding(meta, "dist/src/server/app/start-servers.js"))];
    assert.ok(loaded.includes("dist/src/server/http/webhook-server.js"), "the closure is serve's");
    assert.deepEqual(
      loaded.filter((m) => /^dist\/src\/(ui|playground)\//.test(m)),
      [],
    );
    const ui = [...staticClosure(meta, outputHolding(meta, "dist/src/ui/ui-server.js"))];
    assert.ok(ui.includes("dist/src/playground/playground-bundle.js"));
  });

  test("every CommonJS script is ASCII, so V8 keeps its text at one byte a character in each thread that loads it", () => {
    const dir = join(root, "dist", "bundle", "cjs");
    const scripts = readdirSync(dir).filter((f) => f.endsWith(".js"));
    assert.ok(scripts.length > 10, "the scripts are built");
    for (const name of scripts) {
      const bytes = readFileSync(join(dir, name));
      const at = bytes.findIndex((b) => b > 0x7f);
      assert.equal(
        at,
        -1,
        `${name} has a byte past ASCII at ${at}: ${bytes.subarray(Math.max(0, at - 40), at + 8).toString()}`,
      );
    }
  });

  test("a regular expression whose non-ASCII character the rewrite escaped still matches it (a duration in µs)", () => {
    const r = spawnSync(
      process.execPath,
      [join(root, "bin", "bylaw.js"), "cel", "eval", 'duration("1\u00b5s") == duration("1000ns")'],
      { encoding: "utf8" },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), "true");
  });

  test("the worker entries sit beside the chunks that start them by a relative URL", () => {
    for (const [module, entry] of [
      ["dist/src/server/worker/worker-pool.js", "evaluation-worker.js"],
      ["dist/src/cli/commands/test/run-suites.js", "suite-worker.js"],
    ] as const) {
      const chunk = outputHolding(meta, module);
      assert.equal(
        chunk.slice(0, chunk.lastIndexOf("/")),
        "dist/bundle/esm",
        `${module} is bundled into dist/bundle/esm/`,
      );
      assert.ok(existsSync(join(root, "dist", "bundle", "esm", entry)), `dist/bundle/esm/${entry}`);
      // The CommonJS copy's import.meta.url names dist/bundle/, where the entry that loads the worker's script is.
      assert.ok(existsSync(join(root, "dist", "bundle", entry)), `dist/bundle/${entry}`);
    }
  });

  test("`bylaw test` keeps what it parsed in the build's cache folder; an edited file is read again and changes the result", () => {
    const cache = mkdtempSync(join(tmpdir(), "bylaw-compile-cache-"));
    const suite = tempTree({
      "policy.yaml":
        'apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: require-team}\nspec:\n  rules:\n  - name: team\n    match: {any: [{resources: {kinds: [Pod]}}]}\n    validate: {message: team label, pattern: {metadata: {labels: {team: "?*"}}}}\n',
      "pod.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {team: a}}\n",
      "kyverno-test.yaml":
        "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: t}\npolicies: [policy.yaml]\nresources: [pod.yaml]\nresults:\n- {policy: require-team, rule: team, resources: [web], kind: Pod, result: pass}\n",
    });
    try {
      const run = (): { status: number | null; stdout: string } =>
        spawnSync(process.execPath, [join(root, "bin", "bylaw.js"), "test", suite, "-o", "bylaw-json"], {
          encoding: "utf8",
          env: { ...process.env, BYLAW_COMPILE_CACHE: cache },
        });
      const first = run();
      const [folder] = readdirSync(cache);
      assert.equal(
        readdirSync(join(cache, folder ?? "", "parse")).filter((f) => f.endsWith(".pack")).length,
        1,
        "one pack for the run's paths",
      );
      const second = run();
      assert.deepEqual([first.status, second.status], [0, 0]);
      assert.equal(second.stdout, first.stdout);
      // The same size and the same path, another text: the label is gone, the row now fails.
      writeFileSync(join(suite, "pod.yaml"), "apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {tean: a}}\n");
      const third = run();
      assert.equal(third.status, 1, third.stdout);
      assert.match(third.stdout, /"failed": 1/);
    } finally {
      rmSync(cache, { recursive: true, force: true });
      rmSync(suite, { recursive: true, force: true });
    }
  });

  test("`bylaw test` on a small suite loads no network or process module (registry and Git load only when asked for)", () => {
    const dir = mkdtempSync(join(tmpdir(), "bylaw-preload-"));
    try {
      const preload = join(dir, "loaded.cjs");
      writeFileSync(
        preload,
        'process.on("exit", () => process.stderr.write("\\nLOADED " + JSON.stringify(process.moduleLoadList) + "\\n"));\n',
      );
      const r = spawnSync(
        process.execPath,
        ["-r", preload, join(root, "bin", "bylaw.js"), "test", join(root, "examples", "mutate", "add-labels")],
        { encoding: "utf8" },
      );
      assert.equal(r.status, 0, r.stderr);
      const line = r.stderr.split("\n").find((l) => l.startsWith("LOADED "));
      const loaded = JSON.parse(line?.slice("LOADED ".length) ?? "[]") as string[];
      assert.ok(loaded.includes("NativeModule fs"), "the list was read");
      for (const m of ["https", "http", "tls", "child_process"])
        assert.ok(!loaded.includes(`NativeModule ${m}`), `node:${m} was loaded`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("every chunk has its CommonJS script, and nothing else is in dist/bundle/cjs", () => {
    const chunks = Object.keys(meta.outputs)
      .filter((f) => f.endsWith(".js"))
      .map((f) => basename(f))
      .sort();
    assert.deepEqual(readdirSync(join(root, "dist", "bundle", "cjs")).sort(), chunks);
  });

  test("a second run compiles from the cache the first wrote, with the same output; caching off writes none", () => {
    const cache = mkdtempSync(join(tmpdir(), "bylaw-compile-cache-"));
    try {
      const run = (env: Record<string, string>): { status: number | null; stdout: string } =>
        spawnSync(
          process.execPath,
          [join(root, "bin", "bylaw.js"), "test", join(root, "examples", "mutate", "add-labels"), "-o", "bylaw-json"],
          { encoding: "utf8", env: { ...process.env, ...env } },
        );
      const off = run({ BYLAW_COMPILE_CACHE: "off" });
      assert.equal(off.status, 0);
      assert.deepEqual(readdirSync(cache), []);
      const first = run({ BYLAW_COMPILE_CACHE: cache });
      const [folder, ...others] = readdirSync(cache);
      assert.equal(others.length, 0);
      const files = readdirSync(join(cache, folder ?? ""));
      assert.ok(files.some((f) => f.startsWith("main.js.")) && files.length > 3, files.join(" "));
      const second = run({ BYLAW_COMPILE_CACHE: cache });
      assert.deepEqual([first.status, second.status], [0, 0]);
      assert.equal(second.stdout, off.stdout);
      assert.equal(first.stdout, off.stdout);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  test("with source maps on, the CLI runs the ES modules (stack traces map back to dist/src)", () => {
    const r = spawnSync(
      process.execPath,
      [
        "--enable-source-maps",
        join(root, "bin", "bylaw.js"),
        "test",
        join(root, "examples", "mutate", "add-labels"),
        "-o",
        "bylaw-json",
      ],
      {
        encoding: "utf8",
        env: { ...process.env, BYLAW_COMPILE_CACHE: "off" },
      },
    );
    assert.equal(r.status, 0, r.stderr);
    assert.ok((JSON.parse(r.stdout) as { suites: unknown[] }).suites.length === 1);
  });

  test("`bylaw test` from the bundle gives the same output with worker threads as without", () => {
    const run = (workers: string): { status: number | null; stdout: string } =>
      spawnSync(process.execPath, [join(root, "bin", "bylaw.js"), "test", join(root, "examples"), "-o", "bylaw-json"], {
        encoding: "utf8",
        env: { ...process.env, BYLAW_TEST_WORKERS: workers },
      });
    const alone = run("0");
    const shared = run("2");
    assert.equal(alone.status, 0);
    assert.equal(shared.status, 0);
    assert.equal(shared.stdout, alone.stdout);
    assert.ok((JSON.parse(alone.stdout) as { suites: unknown[] }).suites.length >= 3);
  });
});
