/**
 * Issue 38 §3, the playground (docs/playground.md), in Debian's chromium (headless, driven by
 * playwright-core with `executablePath`: no browser is downloaded), from the static site `bylaw
 * playground --out DIR` writes, opened from disk:
 * - the conformance corpus's first 50 suites (MANIFEST.tsv order), each pasted through a share link,
 *   give in the page the rows `bylaw apply POLICIES -r RESOURCES [-f VALUES] --output-format json`
 *   prints: the same policy, rule, resource, result and message, row for row;
 * - typing runs it again, and the address then carries the new inputs, which a fresh tab restores;
 * - a hostile resource name or message shows as its characters (no element is made of it);
 * - the page asks no server for anything: every request is for its own three files.
 * Screenshots go to a temporary folder named in the output (not committed).
 *
 * Skips, naming the binary, when chromium is not installed (`apt-get install -y chromium`, or
 * `scripts/chromium.sh install`; BYLAW_CHROMIUM names another binary) or the corpus is not beside
 * the repository; CI installs chromium first, so there it runs.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { parse } from "yaml";
import { chromium, type Browser, type Page } from "playwright-core";
import { readManifest } from "../conformance/manifest.js";
import { decodeInputs, encodeInputs, type PlaygroundInputs } from "../../src/playground/share-link.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const corpus = resolve(root, "..", "shared", "conformance", "kyverno-policies");
const CHROMIUM = process.env["BYLAW_CHROMIUM"] ?? "/usr/bin/chromium";
const skip = !existsSync(CHROMIUM)
  ? `chromium is not installed at ${CHROMIUM} (apt-get install -y chromium, or set BYLAW_CHROMIUM)`
  : !existsSync(join(corpus, "MANIFEST.tsv"))
    ? `the conformance corpus is not at ${corpus}`
    : false;
const run = promisify(execFile);
const SUITES = 50;

interface Row {
  readonly policy: string;
  readonly rule: string;
  readonly resource: string;
  readonly result: string;
  readonly message?: string;
}

const key = (r: Row): string => [r.policy, r.rule, r.resource, r.result, r.message ?? ""].join(" | ");

/** A suite's policy, resource and values files, as paths and as the playground's three texts. */
function suiteInputs(suiteDir: string): {
  paths: { policies: string[]; resources: string[]; values?: string };
  inputs: PlaygroundInputs;
} {
  const dir = join(corpus, suiteDir, ".kyverno-test");
  const suite = parse(readFileSync(join(dir, "kyverno-test.yaml"), "utf8")) as Record<string, unknown>;
  const files = (k: string): string[] => ((suite[k] as string[] | undefined) ?? []).map((f) => resolve(dir, f));
  const values = typeof suite["variables"] === "string" ? resolve(dir, suite["variables"]) : undefined;
  const text = (paths: readonly string[]): string => paths.map((p) => readFileSync(p, "utf8")).join("\n---\n");
  const paths = {
    policies: files("policies"),
    resources: files("resources"),
    ...(values !== undefined ? { values } : {}),
  };
  return {
    paths,
    inputs: {
      policies: text(paths.policies),
      resources: text(paths.resources),
      values: values === undefined ? "" : readFileSync(values, "utf8"),
    },
  };
}

/** What `bylaw apply` prints for the suite's files: its rows, or undefined when it refuses the input (exit 2). */
async function applyRows(paths: {
  policies: string[];
  resources: string[];
  values?: string;
}): Promise<Row[] | undefined> {
  const args = [
    join(root, "bin", "bylaw.js"),
    "apply",
    ...paths.policies,
    ...paths.resources.flatMap((r) => ["-r", r]),
    ...(paths.values !== undefined ? ["-f", paths.values] : []),
    "--output-format",
    "json",
  ];
  const out = await run(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }).catch(
    (e: { code?: number; stdout?: string }) => {
      if (e.code === 1) return { stdout: e.stdout ?? "" };
      if (e.code === 2) return undefined;
      throw e;
    },
  );
  if (out === undefined) return undefined;
  const parsed = JSON.parse(out.stdout) as { results: Row[] };
  return parsed.results.map((r) => ({
    policy: r.policy,
    rule: r.rule,
    resource: r.resource,
    result: r.result,
    message: r.message ?? "",
  }));
}

async function runs(page: Page): Promise<number> {
  return Number((await page.getAttribute("body", "data-runs")) ?? "0");
}

/** Opens the inputs' share link (or changes the fragment of the page open) and waits for the run it starts. */
async function show(page: Page, base: string, inputs: PlaygroundInputs): Promise<void> {
  const before = page.url().startsWith(base) ? await runs(page) : 0;
  await page.goto(`${base}#${encodeInputs(inputs)}`);
  await page.waitForFunction((n) => Number(document.body.dataset["runs"] ?? "0") > n, before, { timeout: 60_000 });
}

async function pageRows(page: Page): Promise<Row[]> {
  return page.$$eval("tr.result", (trs) =>
    trs.map((tr) => ({
      policy: tr.getAttribute("data-policy") ?? "",
      rule: tr.getAttribute("data-rule") ?? "",
      resource: tr.getAttribute("data-resource") ?? "",
      result: tr.getAttribute("data-result") ?? "",
      message: tr.querySelector("td.message")?.textContent ?? "",
    })),
  );
}

describe("the playground in chromium", { skip, timeout: 15 * 60_000 }, () => {
  let browser: Browser;
  let page: Page;
  let base: string;
  const requests: string[] = [];
  const pageErrors: string[] = [];
  const shots = mkdtempSync(join(tmpdir(), "bylaw-playground-screenshots-"));

  before(async () => {
    const site = mkdtempSync(join(tmpdir(), "bylaw-playground-"));
    await run(process.execPath, [join(root, "bin", "bylaw.js"), "playground", "--out", site]);
    base = pathToFileURL(join(site, "index.html")).href;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("request", (r) => requests.push(r.url()));
    page.on("pageerror", (e) => pageErrors.push(e.message));
    console.log(`# screenshots in ${shots}`);
  });

  after(async () => {
    await browser?.close();
  });

  test(`the first ${SUITES} suites of the corpus give bylaw apply's rows`, async () => {
    const suites = (await readManifest(join(corpus, "MANIFEST.tsv"))).slice(0, SUITES);
    assert.equal(suites.length, SUITES);
    let rows = 0;
    let refused = 0;
    for (const [i, suite] of suites.entries()) {
      const { paths, inputs } = suiteInputs(suite.suiteDir);
      const expected = await applyRows(paths);
      await show(page, base, inputs);
      if (expected === undefined) {
        refused++;
        assert.ok(
          (await page.locator("#errors li").count()) > 0,
          `${suite.suiteDir}: bylaw apply refused it; the page shows no error`,
        );
        continue;
      }
      const got = await pageRows(page);
      assert.deepEqual(got.map(key).sort(), expected.map(key).sort(), suite.suiteDir);
      rows += got.length;
      if (i === 0) await page.screenshot({ path: join(shots, "suite-1.png"), fullPage: true });
    }
    // The corpus's first 50 suites hold hundreds of results: a page that showed none would not get here.
    assert.ok(rows > 100, `only ${rows} rows compared`);
    console.log(`# ${rows} rows of ${SUITES} suites compared (${refused} suites refused by both)`);
  });

  test("typing runs the policies again, and the address carries the new inputs to a fresh tab", async () => {
    await page.goto(base);
    await page.waitForFunction(() => Number(document.body.dataset["runs"] ?? "0") > 0);
    assert.deepEqual((await pageRows(page)).map((r) => `${r.policy}/${r.rule}=${r.result}`).sort(), [
      "add-team-label/add-team=pass",
      "disallow-latest-tag/validate-image-tag=fail",
    ]);
    const n = await runs(page);
    const resources = (await page.inputValue("#in-resources")).replace("nginx:latest", "nginx:1.27");
    await page.fill("#in-resources", resources);
    await page.waitForFunction((m) => Number(document.body.dataset["runs"] ?? "0") > m, n);
    assert.deepEqual((await pageRows(page)).map((r) => `${r.policy}/${r.rule}=${r.result}`).sort(), [
      "add-team-label/add-team=pass",
      "disallow-latest-tag/validate-image-tag=pass",
    ]);
    assert.ok(await page.locator(".patch pre").isVisible(), "the mutation's patch is shown");
    const link = page.url();
    const decoded = decodeInputs(new URL(link).hash);
    assert.ok(decoded.ok);
    assert.equal(decoded.inputs.resources, resources);
    const fresh = await browser.newPage();
    await fresh.goto(link);
    await fresh.waitForFunction(() => Number(document.body.dataset["runs"] ?? "0") > 0);
    assert.equal(await fresh.inputValue("#in-resources"), resources);
    assert.equal((await pageRows(fresh)).find((r) => r.rule === "validate-image-tag")?.result, "pass");
    await fresh.locator("details.explanation summary").first().click();
    assert.match((await fresh.textContent("details.explanation pre")) ?? "", /match\.any\[0\] selected it/);
    await fresh.screenshot({ path: join(shots, "playground.png"), fullPage: true });
    await fresh.close();
  });

  test("a hostile name or message shows as text, and a broken policy is an error naming its document", async () => {
    const hostile = '<img src=x onerror="document.title=1">';
    await show(page, base, {
      policies: `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata: {name: check-name}
spec:
  rules:
    - name: r
      match: {any: [{resources: {kinds: [ConfigMap]}}]}
      validate:
        message: "bad: {{ request.object.metadata.name }}"
        pattern: {data: {k: v}}
`,
      resources: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '${hostile}', namespace: default}\ndata: {k: other}\n`,
      values: "",
    });
    assert.equal(await page.locator("#output img").count(), 0);
    assert.ok(((await page.textContent("#output h2")) ?? "").includes(hostile));
    assert.ok(((await page.textContent("td.message")) ?? "").includes(hostile));
    assert.notEqual(await page.title(), "1");
    await page.screenshot({ path: join(shots, "hostile.png"), fullPage: true });

    await show(page, base, {
      policies:
        "apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n  rules:\n    - name: r\n      matchh: {}\n",
      resources: "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n",
      values: "",
    });
    const errors = (await page.textContent("#errors")) ?? "";
    assert.match(errors, /policies/);
    assert.match(errors, /matchh/);
    assert.equal(await page.locator("tr.result").count(), 0);
  });

  test("the page requests nothing but its own three files, and throws nothing", () => {
    const foreign = requests.filter((u) => !u.startsWith("file://"));
    assert.deepEqual(foreign, []);
    assert.deepEqual(pageErrors, []);
  });
});
