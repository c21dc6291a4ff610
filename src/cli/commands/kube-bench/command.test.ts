import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { main } from "../../main.js";
import { recordingIo } from "../../../../test/support/fake-io.js";
import { tempTree } from "../../../../test/support/temp-dir.js";

const doc = JSON.stringify([
  {
    id: "1",
    version: "cis-1.10",
    text: "Control Plane",
    node_type: "master",
    tests: [
      {
        section: "1.1",
        desc: "Files",
        results: [{ test_number: "1.1.1", test_desc: "perms (Automated)", status: "PASS", scored: true }],
      },
    ],
    total_pass: 1,
  },
]);

async function run(args: string[]) {
  const io = recordingIo();
  const code = await main(["kube-bench", ...args], io);
  return { code, out: io.stdout.join("\n"), err: io.stderr.join("\n") };
}

test("without --pushgateway and --loki it prints what it would send", async () => {
  const dir = tempTree({ "r.json": doc });
  const r = await run([join(dir, "r.json"), "--node", "cp-1"]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.out,
    /^kube_bench_info\{kube_bench_type="master",kube_bench_target="master",kube_bench_syntax="cis-1\.10",kube_bench_node_name="cp-1"\} 1$/m,
  );
  assert.match(r.out, /"line":"\[PASS\] 1\.1\.1 perms \(Automated\)"/);
});

test("usage errors: no file, no node, a bad --timeout, a bad --loki-label or URL; one line and a hint, exit 2", async () => {
  const dir = tempTree({ "r.json": doc });
  const f = join(dir, "r.json");
  const cases: [string[], string][] = [
    [
      ["--node", "n"],
      "kube-bench needs a FILE of kube-bench run --json output (- for standard input), or a command after --",
    ],
    [
      [f],
      "kube-bench's JSON does not name the node: give --node NAME or set NODE_NAME (the Downward API's spec.nodeName)",
    ],
    [[f, "--node", "n", "--timeout", "soon"], "--timeout soon is not a duration like 30s"],
    [[f, "--node", "n", "--loki-label", "cluster"], '--loki-label "cluster" is not NAME=VALUE'],
    [[f, "--node", "n", "--loki", "loki:3100"], "--loki loki:3100: use an http or https URL"],
    [[f, "--node", "n", "--loki", "http://l", "--loki-encoding", "xml"], "--loki-encoding xml: use protobuf or json"],
  ];
  const saved = process.env["NODE_NAME"];
  delete process.env["NODE_NAME"];
  try {
    for (const [args, message] of cases) {
      const r = await run(args);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.err, `bylaw kube-bench: ${message}\nRun \`bylaw kube-bench --help\` for usage.`);
    }
  } finally {
    if (saved !== undefined) process.env["NODE_NAME"] = saved;
  }
});

test("a file that is not kube-bench JSON: exit 2, the file and the field named", async () => {
  const dir = tempTree({ "bad.json": JSON.stringify([{ id: "1" }]) });
  const r = await run([join(dir, "bad.json"), "--node", "n"]);
  assert.equal(r.code, 2);
  assert.equal(r.err, `bylaw kube-bench: ${join(dir, "bad.json")}: [0].version: expected a string, found nothing`);
  const missing = await run([join(dir, "nope.json"), "--node", "n"]);
  assert.equal(missing.code, 2);
  assert.equal(missing.err, `bylaw kube-bench: ${join(dir, "nope.json")}: cannot read it (ENOENT)`);
});

test("a command after -- writes kube-bench's JSON instead of FILE", async () => {
  const dir = tempTree({ "r.json": doc });
  const r = await run(["--node", "cp-1", "--", "cat", join(dir, "r.json")]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /kube_bench_node_name="cp-1"\} 1$/m);
});

test("a command that fails, or writes what is not kube-bench JSON, exits 1 saying why", async () => {
  const failed = await run(["--node", "cp-1", "--", "sh", "-c", "echo kube-bench: no config >&2; exit 3"]);
  assert.equal(failed.code, 1);
  assert.match(
    failed.err,
    /"sh -c echo kube-bench: no config >&2; exit 3" exited with code 3; its stderr ends: kube-bench: no config/,
  );
  const notJson = await run(["--node", "cp-1", "--", "echo", "hello"]);
  assert.equal(notJson.code, 1);
  assert.match(notJson.err, /the output of echo hello/);
});

test("FILE and a command together, --schedule without a command, or a schedule that cannot be read: usage errors", async () => {
  const both = await run(["x.json", "--node", "n", "--", "true"]);
  assert.equal(both.code, 2);
  assert.match(both.err, /not both/);
  const alone = await run(["x.json", "--schedule", "@hourly", "--node", "n"]);
  assert.equal(alone.code, 2);
  assert.match(alone.err, /--schedule needs the command that runs kube-bench at each tick, after --/);
  const bad = await run(["--schedule", "every tuesday", "--node", "n", "--", "true"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--schedule: schedule "every tuesday"/);
  const timeout = await run(["--run-timeout", "soon", "--node", "n", "--", "true"]);
  assert.equal(timeout.code, 2);
  assert.match(timeout.err, /--run-timeout soon is not a duration/);
});
