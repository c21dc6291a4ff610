/** The `bylaw` binary: dispatch to a subcommand. */
import { applyCommand, APPLY_HELP } from "./commands/apply/command.js";
import { testCommand, TEST_HELP } from "./commands/test/command.js";
import { jpCommand, JP_HELP } from "./commands/jp/command.js";
import { serveCommand, SERVE_HELP } from "./commands/serve/command.js";
import { policySetsCommand, POLICY_SETS_HELP } from "./commands/policy-sets/command.js";
import { processIo, type Io } from "./io.js";

const VERSION = "0.1.0";

export const MAIN_HELP = `bylaw — run Kyverno policies, unchanged, faster.

Usage: bylaw COMMAND [flags]

Commands:
  apply        check manifests against ClusterPolicy/Policy documents or shipped policy sets (offline)
  policy-sets  list the policy sets Bylaw ships (pss-baseline, pss-restricted, ...) and their policies
  test         run kyverno-test.yaml suites, like \`kyverno test\`
  jp           evaluate JMESPath with Kyverno's functions (query, function, parse)
  serve        run the admission webhook (mutate, validate, policy checks) with Prometheus metrics
  version      print the version

Run \`bylaw COMMAND --help\` for a command's flags and examples.
Also works as a kubectl plugin when installed as kubectl-bylaw.`;

const COMMANDS: Record<string, { run: (args: string[], io: Io) => Promise<number>; help: string }> = {
  apply: { run: applyCommand, help: APPLY_HELP },
  "policy-sets": { run: policySetsCommand, help: POLICY_SETS_HELP },
  test: { run: testCommand, help: TEST_HELP },
  jp: { run: jpCommand, help: JP_HELP },
  serve: { run: (args, io) => serveCommand(args, io), help: SERVE_HELP },
};

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    const topic = command === "help" && rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
    io.out(topic ? topic.help : MAIN_HELP);
    return 0;
  }
  if (command === "version" || command === "--version") {
    io.out(`bylaw ${VERSION} (Kyverno v1.19 compatible)`);
    return 0;
  }
  const cmd = COMMANDS[command];
  if (!cmd) {
    io.err(`bylaw: unknown command ${JSON.stringify(command)}\n\n${MAIN_HELP}`);
    return 2;
  }
  try {
    return await cmd.run(rest, io);
  } catch (e) {
    const err = e as Error & { code?: string };
    if (err.code?.startsWith("ERR_PARSE_ARGS")) {
      io.err(`bylaw ${command}: ${err.message}\nRun \`bylaw ${command} --help\` for usage.`);
      return 2;
    }
    io.err(`bylaw ${command}: internal error: ${err.stack ?? String(e)}`);
    return 3;
  }
}
