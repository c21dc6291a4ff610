/**
 * The report UI's and the playground's bundle sizes, and how long each takes to first show its
 * content in Debian's chromium (headless, playwright-core with `executablePath`). `npm run bench:ui`.
 *
 * - Sizes: each page's script and style sheet as served, and gzip-compressed (what a proxy that
 *   compresses would send).
 * - The report UI: `createUiServer` over loopback HTTPS with reads answered in-process (REPORTS
 *   PolicyReports of RESULTS results each, no API server), the token already in the tab; the time
 *   is the page's `performance.now()` when the overview's table is drawn (from navigation start).
 * - The playground: the static site `bylaw playground` writes, opened from disk, until the first
 *   run's results are drawn (the engine's own share of it as the page reports it), with its example
 *   inputs and with a larger share link (the corpus's first suite with many resources).
 * ROUNDS fresh tabs each; prints the median and the range. Nothing here passes or fails.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { parse } from "yaml";
import { chromium, type Browser } from "playwright-core";
import { selfSignedCertificate } from "../src/server/tls/self-signed.js";
import type { ViewerReads } from "../src/kube/viewer-reads.js";
import { createUiServer } from "../src/ui/ui-server.js";
import { BROWSER_BUNDLE } from "../src/ui/browser-bundle.js";
import { PLAYGROUND_BUNDLE } from "../src/playground/playground-bundle.js";
import { encodeInputs } from "../src/playground/share-link.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CHROMIUM = process.env["BYLAW_CHROMIUM"] ?? "/usr/bin/chromium";
const ROUNDS = Number(process.env["BENCH_ROUNDS"] ?? "5");
const REPORTS = Number(process.env["BENCH_REPORTS"] ?? "500");
const RESULTS = 10;

const kib = (n: number): string => `${(n / 1024).toFixed(0)} KiB`;

function sizes(name: string, bundle: { script: string; style: string } | undefined): void {
  if (bundle === undefined) return console.log(`${name}: not built (npm run build)`);
  const raw = Buffer.byteLength(bundle.script) + Buffer.byteLength(bundle.style);
  const gz = gzipSync(bundle.script).length + gzipSync(bundle.style).length;
  console.log(
    `${name}: script ${kib(Buffer.byteLength(bundle.script))}, style ${kib(Buffer.byteLength(bundle.style))}; ${kib(raw)} in all, ${kib(gz)} gzipped`,
  );
}

function summary(label: string, ms: readonly number[]): void {
  const sorted = [...ms].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  console.log(
    `${label}: median ${median.toFixed(0)} ms (${sorted[0]?.toFixed(0)}–${sorted.at(-1)?.toFixed(0)}, ${ms.length} tabs)`,
  );
}

function reports(): ViewerReads {
  const items = Array.from({ length: REPORTS }, (_, i) => ({
    apiVersion: "wgpolicyk8s.io/v1alpha2",
    kind: "PolicyReport",
    metadata: { name: `r-${i}`, namespace: `ns-${i % 25}`, uid: `u-${i}` },
    scope: { apiVersion: "v1", kind: "Pod", name: `pod-${i}`, namespace: `ns-${i % 25}` },
    results: Array.from({ length: RESULTS }, (_, j) => ({
      policy: `policy-${j}`,
      rule: `rule-${j}`,
      result: j % 3 === 0 ? "fail" : "pass",
      severity: j % 2 === 0 ? "high" : "medium",
      message: `message ${j}`,
      timestamp: { seconds: 1_764_000_000 + i, nanos: 0 },
    })),
  }));
  return {
    get(_token, path) {
      if (path.includes("wgpolicyk8s.io") && path.endsWith("/policyreports"))
        return Promise.resolve({ ok: true, body: { metadata: { resourceVersion: "1" }, items } });
      if (path.includes("wgpolicyk8s.io"))
        return Promise.resolve({ ok: true, body: { metadata: { resourceVersion: "1" }, items: [] } });
      return Promise.resolve({ ok: false, status: 404, message: "not found" });
    },
    close() {},
  };
}

async function reportUi(browser: Browser): Promise<void> {
  const cert = selfSignedCertificate({ dnsNames: ["localhost"], now: new Date() });
  const server = createUiServer({
    host: "127.0.0.1",
    port: 0,
    tls: { cert: cert.cert, key: cert.key },
    reads: reports(),
  });
  const { port } = await server.listen();
  const times: number[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      await context.addInitScript(() => sessionStorage.setItem("bylaw-ui-token", "bench"));
      const page = await context.newPage();
      await page.goto(`https://127.0.0.1:${port}/`);
      await page.waitForSelector('[data-page="overview"] table tbody tr', { timeout: 60_000 });
      times.push(await page.evaluate(() => performance.now()));
      await context.close();
    }
  } finally {
    await server.close();
  }
  summary(`report UI first render (${REPORTS} reports × ${RESULTS} results)`, times);
}

async function playground(browser: Browser, label: string, fragment: string): Promise<void> {
  const site = mkdtempSync(join(tmpdir(), "bylaw-bench-playground-"));
  execFileSync(process.execPath, [join(root, "bin", "bylaw.js"), "playground", "--out", site], { stdio: "ignore" });
  const url = `${pathToFileURL(join(site, "index.html")).href}${fragment}`;
  const times: number[] = [];
  const engine: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(() => document.body.dataset["runs"] === "1", undefined, { timeout: 60_000 });
    times.push(await page.evaluate(() => performance.now()));
    const status = (await page.textContent("#status")) ?? "";
    engine.push(Number(/, (\d+) ms,/.exec(status)?.[1] ?? NaN));
    await page.close();
  }
  summary(`playground first render, ${label}`, times);
  summary(`  of which the engine's first run`, engine);
}

/** The corpus suite with the largest resource files (56 KB, 70 Pods and controllers), as a share link. */
function bigLink(): { label: string; fragment: string } | undefined {
  const suite = "pod-security/baseline/disallow-selinux";
  const dir = join(root, "..", "shared", "conformance", "kyverno-policies", suite, ".kyverno-test");
  if (!existsSync(dir)) return undefined;
  const spec = parse(readFileSync(join(dir, "kyverno-test.yaml"), "utf8")) as {
    policies: string[];
    resources: string[];
  };
  const text = (paths: string[]): string => paths.map((p) => readFileSync(resolve(dir, p), "utf8")).join("\n---\n");
  const inputs = { policies: text(spec.policies), resources: text(spec.resources), values: "" };
  return { label: `${suite} (${kib(inputs.resources.length)} of resources)`, fragment: `#${encodeInputs(inputs)}` };
}

async function main(): Promise<void> {
  sizes("report UI", BROWSER_BUNDLE);
  sizes("playground", PLAYGROUND_BUNDLE);
  if (!existsSync(CHROMIUM)) {
    console.log(`first render: chromium is not installed at ${CHROMIUM} (scripts/chromium.sh install); skipped`);
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  try {
    await reportUi(browser);
    await playground(browser, "its example inputs", "");
    const big = bigLink();
    if (big !== undefined) await playground(browser, big.label, big.fragment);
  } finally {
    await browser.close();
  }
}

await main();
