/**
 * `npm run side-by-side:cross -- --kyverno PATH`: every corpus policy against every corpus
 * resource, through both CLIs as a user runs them: `kyverno apply POLICY... -r RESOURCES -p
 * --output-format json` beside `bylaw apply` with the same arguments. The policies go in batches
 * (`--batch`, default 20); a batch Bylaw refuses as a whole (an invalid policy exits 2, where Kyverno
 * skips the policy and goes on), or one Kyverno's CLI stops on (a panic in its fake client), is split
 * in halves until the policy that spoils it is alone. `--out` is rewritten after each batch. Results are keyed by policy, rule and resource
 * (apiVersion/kind/namespace/name) and compared as multisets of (result, message): the corpus holds
 * several resources of the same name. Prints the counts and the first differences; `--out FILE`
 * writes every difference as TSV (key, kyverno, bylaw).
 *
 *   --kyverno PATH      Kyverno's CLI binary (required; go build ./cmd/cli/kubectl-kyverno)
 *   --category NAME     only the policies of one MANIFEST category's suites
 *   --batch N           policies per invocation (default 20)
 *   --from N            start at the Nth policy (0-based, in the printed order): continues a run
 *                       stopped at "N/M policies"
 *   --show N            differences printed (default 40)
 *   --out FILE          every difference, as TSV
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parseAllDocuments } from "yaml";
import { readManifest } from "../conformance/manifest.js";

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, "..", "..", "..");
const bylawBin = join(repoRoot, "bin", "bylaw.js");

/** Kinds that are inputs of the CLIs, not resources to check. */
const NOT_RESOURCES =
  /^(Test|Values|UserInfo|Context|PolicyException|ClusterPolicy|Policy|ValidatingPolicy|NamespacedValidatingPolicy|MutatingPolicy|NamespacedMutatingPolicy|GeneratingPolicy|NamespacedGeneratingPolicy|DeletingPolicy|NamespacedDeletingPolicy|ImageValidatingPolicy|NamespacedImageValidatingPolicy|ValidatingAdmissionPolicy|ValidatingAdmissionPolicyBinding|MutatingAdmissionPolicy|MutatingAdmissionPolicyBinding|CleanupPolicy|ClusterCleanupPolicy)$/;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(file: string, args: readonly string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(
      file,
      args,
      { timeout: 600_000, maxBuffer: 512 * 1024 * 1024, env: { ...process.env, KYVERNO_EXPERIMENTAL: "true" } },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        done({ code, stdout, stderr });
      },
    );
  });
}

type Rows = Map<string, string[]>;

const text = (v: unknown): string =>
  typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v);

/** The rows of `-p --output-format json`: one report per line, `---` between them. */
function reportRows(stdout: string): Rows | undefined {
  const rows: Rows = new Map();
  let reports = 0;
  for (const line of stdout.split("\n")) {
    // Kyverno prints a report on the line of its last "Mutation has been applied successfully." when
    // a batch holds MutatingPolicies: the report is the line from its first `{"`.
    const at = line.indexOf('{"');
    if (at < 0) continue;
    const json = line.slice(at).trim();
    let report: { results?: unknown };
    try {
      report = JSON.parse(json) as { results?: unknown };
    } catch {
      continue;
    }
    reports++;
    if (!Array.isArray(report.results)) continue;
    for (const r of report.results as Record<string, unknown>[]) {
      const subjects = (r["subjects"] ?? r["resources"] ?? []) as Record<string, unknown>[];
      for (const s of subjects) {
        const key = [
          text(r["policy"]),
          text(r["rule"]),
          `${text(s["apiVersion"])}/${text(s["kind"])}/${text(s["namespace"])}/${text(s["name"])}`,
        ].join("\t");
        const value = `${text(r["result"])}: ${text(r["message"]).trim()}`;
        const list = rows.get(key);
        if (list) list.push(value);
        else rows.set(key, [value]);
      }
    }
  }
  return reports > 0 ? rows : undefined;
}

const firstLine = (text: string): string =>
  text
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "" && !l.startsWith("Applying"))
    ?.slice(0, 300) ?? "";
const names = (paths: readonly string[]): string => paths.map((p) => p.replace(/^.*\/([^/]+)\.ya?ml$/, "$1")).join(" ");

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      kyverno: { type: "string" },
      category: { type: "string" },
      batch: { type: "string", default: "20" },
      from: { type: "string", default: "0" },
      show: { type: "string", default: "40" },
      out: { type: "string" },
    },
  });
  if (values.kyverno === undefined || !existsSync(values.kyverno)) {
    console.error("side-by-side:cross: --kyverno PATH names Kyverno's CLI binary (go build ./cmd/cli/kubectl-kyverno)");
    return 2;
  }
  const corpus =
    process.env["BYLAW_CONFORMANCE_DIR"] ?? resolve(repoRoot, "..", "shared", "conformance", "kyverno-policies");
  const suites = (await readManifest(join(corpus, "MANIFEST.tsv"))).filter(
    (s) => values.category === undefined || s.category === values.category,
  );
  const policies = new Set<string>();
  const resourceTexts = new Set<string>();
  const identities = new Map<string, number>();
  const seenTexts = new Set<string>();
  for (const suite of suites) {
    const testDir = join(corpus, suite.suiteDir, ".kyverno-test");
    const test = parseAllDocuments(readFileSync(join(testDir, "kyverno-test.yaml"), "utf8"))[0]?.toJS() as
      { policies?: string[]; resources?: string[] } | undefined;
    for (const p of test?.policies ?? []) if (existsSync(join(testDir, p))) policies.add(resolve(testDir, p));
    for (const r of test?.resources ?? []) {
      const path = join(testDir, r);
      if (!existsSync(path)) continue;
      for (const doc of parseAllDocuments(readFileSync(path, "utf8"))) {
        const value = doc.toJS() as { kind?: unknown; metadata?: { name?: unknown } } | null;
        if (value === null || typeof value !== "object" || typeof value.kind !== "string") continue;
        if (NOT_RESOURCES.test(value.kind) || typeof value.metadata?.name !== "string") continue;
        // Kyverno's CLI loads the resources into a fake client, where a second object of the same
        // kind, namespace and name is a panic ("already exists"): later ones are renamed.
        const text = JSON.stringify(value);
        if (seenTexts.has(text)) continue;
        seenTexts.add(text);
        const meta = value.metadata as { name: string; namespace?: unknown };
        const id = `${String(value.kind)}/${typeof meta.namespace === "string" && meta.namespace !== "" ? meta.namespace : "default"}/${meta.name}`;
        const seen = identities.get(id) ?? 0;
        identities.set(id, seen + 1);
        if (seen > 0) meta.name = `${meta.name}-dup${seen}`;
        resourceTexts.add(JSON.stringify(value));
      }
    }
  }
  const work = mkdtempSync(join(tmpdir(), "bylaw-cross-"));
  const resources = join(work, "resources.yaml");
  writeFileSync(resources, [...resourceTexts].join("\n---\n") + "\n");
  const policyList = [...policies].sort();
  console.log(`${policyList.length} policies × ${resourceTexts.size} distinct resources`);

  const started = performance.now();
  const differences: string[][] = [];
  let compared = 0;
  let same = 0;
  const notes: string[] = [];
  const size = Number(values.batch);
  // A batch one policy spoils is split in halves until the policy is alone: a few runs of Kyverno's
  // CLI (each reads every resource) instead of one per policy of the batch.
  const bisect = async (batch: readonly string[]): Promise<void> => {
    const half = Math.ceil(batch.length / 2);
    await compareBatch(batch.slice(0, half));
    await compareBatch(batch.slice(half));
  };
  const compareBatch = async (batch: readonly string[]): Promise<void> => {
    const args = ["apply", ...batch, "-r", resources, "-p", "--output-format", "json", "--remove-color"];
    const [k, b] = [await run(values.kyverno as string, args), await run(process.execPath, [bylawBin, ...args])];
    const kRows = reportRows(k.stdout);
    const bRows = reportRows(b.stdout);
    if (bRows === undefined || (b.code === 2 && bRows.size === 0 && (kRows?.size ?? 0) > 0)) {
      if (batch.length > 1) {
        await bisect(batch);
        return;
      }
      notes.push(`bylaw (exit ${b.code}): ${firstLine(b.stderr + b.stdout)} [${names(batch)}]`);
      return;
    }
    if (kRows === undefined) {
      // Kyverno's CLI stops the whole batch on one policy it cannot run (a panic in its fake client).
      if (batch.length > 1) {
        await bisect(batch);
        return;
      }
      notes.push(`kyverno (exit ${k.code}): ${firstLine(k.stderr + k.stdout)} [${names(batch)}]`);
      return;
    }
    for (const key of new Set([...kRows.keys(), ...bRows.keys()])) {
      const kv = [...(kRows.get(key) ?? [])].sort();
      const bv = [...(bRows.get(key) ?? [])].sort();
      compared++;
      if (JSON.stringify(kv) === JSON.stringify(bv)) same++;
      else differences.push([key, kv.join(" | "), bv.join(" | ")]);
    }
  };
  const writeOut = (): void => {
    if (values.out !== undefined)
      writeFileSync(
        values.out,
        differences.map((d) => d.map((c) => c.replace(/[\t\n]/g, " ")).join("\t")).join("\n") + "\n",
      );
  };
  const from = Number(values.from);
  if (!Number.isInteger(from) || from < 0 || from >= policyList.length) {
    console.error(
      `side-by-side:cross: --from ${values.from ?? ""} is not a policy index (0 to ${policyList.length - 1})`,
    );
    return 2;
  }
  for (let i = from; i < policyList.length; i += size) {
    await compareBatch(policyList.slice(i, i + size));
    // What is known so far, for a run stopped before its end.
    writeOut();
    process.stderr.write(
      `\r${Math.min(i + size, policyList.length)}/${policyList.length} policies: ${compared} keys, ${differences.length} different`,
    );
  }
  process.stderr.write("\n");
  if (process.env["CROSS_KEEP"] === undefined) rmSync(work, { recursive: true, force: true });
  else console.log(`resources kept in ${resources}`);
  console.log(
    `${compared} keys compared in ${((performance.now() - started) / 1000).toFixed(0)} s: ${same} the same, ${differences.length} different`,
  );
  for (const n of notes) console.log(`note: ${n}`);
  for (const d of differences.slice(0, Number(values.show)))
    console.log(`${d[0]}\n  kyverno: ${d[1]}\n  bylaw:   ${d[2]}`);
  writeOut();
  return 0;
}

process.exitCode = await main();
