/** `bylaw completion bash|zsh|fish`: print a shell completion script. */
import type { Io } from "../../io.js";
import { usageLine } from "../../usage.js";
import { type CommandHelp, flagsOf } from "../docs/reference.js";
import { bashScript, type CompletionCommand, fishScript, zshScript } from "./scripts.js";

export const COMPLETION_HELP = `Usage: bylaw completion bash|zsh|fish

Print a completion script for your shell: command names, their templates and targets (create,
fix, jp, cel, completion) and their flags; file names elsewhere.

  bash   source <(bylaw completion bash)             # or save it in /etc/bash_completion.d/bylaw
  zsh    bylaw completion zsh > "\${fpath[1]}/_bylaw"  # then restart zsh (compinit)
  fish   bylaw completion fish > ~/.config/fish/completions/bylaw.fish

The zsh script also works sourced after compinit.

Exit codes: 0 printed; 2 bad usage (no or an unknown shell); 3 internal error (a bug in Bylaw).`;

/** The second words a command takes (subcommands, templates). */
const WORDS: Record<string, readonly string[]> = {
  create: ["test", "values", "user-info", "exception", "cleanup-policy", "metrics-config"],
  fix: ["policy", "test"],
  jp: ["query", "function", "parse"],
  cel: ["eval", "functions"],
  completion: ["bash", "zsh", "fish"],
  help: [],
};

/** `commands` come from the caller (main), so this module does not import main. */
// eslint-disable-next-line @typescript-eslint/require-await -- every command answers with a promise (main awaits them alike)
export async function completionCommand(args: string[], io: Io, commands: readonly CommandHelp[]): Promise<number> {
  const [shell] = args;
  if (shell === "--help" || shell === "-h") {
    io.out(COMPLETION_HELP);
    return 0;
  }
  const make = shell === "bash" ? bashScript : shell === "zsh" ? zshScript : shell === "fish" ? fishScript : undefined;
  if (make === undefined) {
    io.err(
      usageLine(
        "completion",
        shell === undefined
          ? "name the shell: bash, zsh or fish"
          : `unknown shell ${JSON.stringify(shell)}: bash, zsh or fish`,
      ),
    );
    return 2;
  }
  const cmds: CompletionCommand[] = commands.map((c) => ({
    name: c.name,
    summary: c.summary,
    words: WORDS[c.name] ?? [],
    flags: [...flagsOf(c.help), ...(flagsOf(c.help).includes("--help") ? [] : ["--help"])],
  }));
  io.out(make(cmds).trimEnd());
  return 0;
}
