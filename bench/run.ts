/** `npm run bench`: print figures (never pass/fail on time). */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { benchApplyResources } from "./apply-resources.js";
import { benchCorpusTest } from "./corpus-test.js";
import { benchHeavyReview } from "./heavy-review.js";
import { benchJmesPath } from "./jmespath-eval.js";
import { benchMutatePod } from "./mutate-pod.js";
import { benchMutatingPolicyWebhook } from "./mutating-policy-webhook.js";
import { benchReviewCalls } from "./review-calls.js";
import { benchStartup } from "./startup.js";
import { benchYamlParse } from "./yaml-parse.js";
import { benchYamlWrite } from "./yaml-write.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

async function main(): Promise<void> {
  console.log(`bench: node ${process.version}, ${new Date().toISOString()}`);
  benchStartup(repoRoot);
  await benchYamlParse();
  await benchYamlWrite();
  benchJmesPath();
  benchMutatePod();
  benchMutatingPolicyWebhook();
  await benchCorpusTest(repoRoot);
  benchApplyResources(repoRoot);
  await benchHeavyReview(repoRoot);
  await benchReviewCalls(repoRoot);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
