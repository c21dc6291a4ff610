/** The `bylaw` binary: dispatch to a subcommand. */
import { processIo, type Io } from "./io.js";
import { usageLine } from "./usage.js";

const VERSION = "0.1.0";

interface Command {
  /** The one line `bylaw --help` shows for it. */
  readonly summary: string;
  run(args: string[], io: Io): Promise<number>;
  help(): Promise<string>;
}

/** Each command's module loads when it runs: `bylaw apply` does not load the webhook server, TLS or metrics. */
const COMMANDS: Record<string, Command> = {
  apply: {
    summary:
      "check manifests (or, with --cluster, a cluster's objects) against ClusterPolicy/Policy documents or policy sets",
    run: async (args, io) => (await import("./commands/apply/command.js")).applyCommand(args, io),
    help: async () => (await import("./commands/apply/help.js")).APPLY_HELP,
  },
  "policy-sets": {
    summary: "list the policy sets Bylaw ships (pss-baseline, pss-restricted, ...) and their policies",
    run: async (args, io) => (await import("./commands/policy-sets/command.js")).policySetsCommand(args, io),
    help: async () => (await import("./commands/policy-sets/help.js")).POLICY_SETS_HELP,
  },
  test: {
    summary: "run kyverno-test.yaml suites, like `kyverno test`",
    run: async (args, io) => (await import("./commands/test/command.js")).testCommand(args, io),
    help: async () => (await import("./commands/test/command.js")).TEST_HELP,
  },
  create: {
    summary: "write a test, values, user-info, exception, cleanup-policy or metrics-config template",
    run: async (args, io) => (await import("./commands/create/command.js")).createCommand(args, io),
    help: async () => (await import("./commands/create/help.js")).CREATE_HELP,
  },
  fix: {
    summary: "rewrite deprecated fields of policies or test files in place (--dry-run: a diff)",
    run: async (args, io) => (await import("./commands/fix/command.js")).fixCommand(args, io),
    help: async () => (await import("./commands/fix/command.js")).FIX_HELP,
  },
  jp: {
    summary: "evaluate JMESPath with Kyverno's functions (query, function, parse)",
    run: async (args, io) => (await import("./commands/jp/command.js")).jpCommand(args, io),
    help: async () => (await import("./commands/jp/command.js")).JP_HELP,
  },
  cel: {
    summary: "evaluate a CEL expression in Kyverno's CEL environment (eval, functions)",
    run: async (args, io) => (await import("./commands/cel/command.js")).celCommand(args, io),
    help: async () => (await import("./commands/cel/command.js")).CEL_HELP,
  },
  serve: {
    summary: "run the admission webhook (mutate, validate, policy checks) with Prometheus metrics",
    run: async (args, io) => (await import("./commands/serve/command.js")).serveCommand(args, io),
    help: async () => (await import("./commands/serve/help.js")).SERVE_HELP,
  },
  "kube-bench": {
    summary: "send kube-bench's JSON results for a node to a Prometheus Pushgateway and Loki",
    run: async (args, io) => (await import("./commands/kube-bench/command.js")).kubeBenchCommand(args, io),
    help: async () => (await import("./commands/kube-bench/help.js")).KUBE_BENCH_HELP,
  },
  playground: {
    summary: "write the playground (policies evaluated in the browser) as a static site",
    run: async (args, io) => (await import("./commands/playground/command.js")).playgroundCommand(args, io),
    help: async () => (await import("./commands/playground/command.js")).PLAYGROUND_HELP,
  },
  docs: {
    summary: "write Markdown reference pages for the commands",
    run: async (args, io) =>
      (await import("./commands/docs/command.js")).docsCommand(args, io, MAIN_HELP, await commandHelps()),
    help: async () => (await import("./commands/docs/command.js")).DOCS_HELP,
  },
  completion: {
    summary: "print a shell completion script (bash, zsh, fish)",
    run: async (args, io) =>
      (await import("./commands/completion/command.js")).completionCommand(args, io, await commandHelps()),
    help: async () => (await import("./commands/completion/command.js")).COMPLETION_HELP,
  },
};

export const MAIN_HELP = `bylaw — run Kyverno policies, unchanged, faster.

Usage: bylaw COMMAND [flags]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`)
  .join("\n")}
  version      print the version

Run \`bylaw COMMAND --help\` for a command's flags and examples.
Also works as a kubectl plugin when installed as kubectl-bylaw.

Conventions (every command):
  Usage errors print one line saying what is wrong and a hint (Run \`bylaw apply --help\` for usage.),
  never the whole help. Flag names follow Kyverno's where Kyverno has the flag: bylaw apply -o/--output
  PATH and bylaw test -o/--output-format FORMAT, as in kyverno apply and kyverno test; the old
  spellings (bylaw apply -o table|json, bylaw test --output FORMAT) still work, with a warning.
  Progress lines go to stderr only on a terminal, never in CI (CI set) or when stdout carries JSON,
  JUnit or SARIF.

Exit codes (every command):
  0  success: nothing failed
  1  a check found a problem: a rule failed or errored, a test row failed
  2  bad usage (one line says what, and where help is), or unreadable or invalid input
  3  internal error (a bug in Bylaw: please report it with the command line and the message)
  141  stdout was closed early (bylaw ... | head): Bylaw stops quietly, as commands ended by SIGPIPE

Environment:
  BYLAW_COMPILE_CACHE=DIR|off  where V8's code cache of the CLI and bylaw test's parsed YAML are kept
                           (default ~/.cache/bylaw/compile-cache, or $XDG_CACHE_HOME/bylaw/compile-cache);
                           a cache that does not fit the build or the Node version is ignored and
                           rewritten; off turns it off`;

/** Every command's name, summary and --help text, in the order `bylaw --help` lists them (for docs and completion). */
export async function commandHelps(): Promise<{ name: string; summary: string; help: string }[]> {
  return Promise.all(
    Object.entries(COMMANDS).map(async ([name, c]) => ({ name, summary: c.summary, help: await c.help() })),
  );
}

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    const topic = command === "help" && rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
    io.out(topic ? await topic.help() : MAIN_HELP);
    return 0;
  }
  if (command === "version" || command === "--version") {
    io.out(`bylaw ${VERSION} (Kyverno v1.19 compatible)`);
    return 0;
  }
  const cmd = COMMANDS[command];
  if (!cmd) {
    io.err(`bylaw: unknown command ${JSON.stringify(command)}\nRun \`bylaw --help\` for the commands.`);
    return 2;
  }
  try {
    return await cmd.run(rest, io);
  } catch (e) {
    const err = e as Error & { code?: string };
    if (err.code?.startsWith("ERR_PARSE_ARGS")) {
      io.err(usageLine(command, err.message));
      return 2;
    }
    io.err(`bylaw ${command}: internal error: ${err.stack ?? String(e)}`);
    return 3;
  }
}
