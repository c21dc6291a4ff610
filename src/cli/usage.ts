/** A usage error as every command prints it: one line saying what is wrong, then where help is. */
export function usageLine(command: string, message: string): string {
  const first = message.split("\n")[0] ?? message;
  return `bylaw ${command}: ${first}\nRun \`bylaw ${command} --help\` for usage.`;
}

/** The exit codes every command shares, for --help texts. */
export const EXIT_CODE_3 = "3  internal error (a bug in Bylaw: please report it with the command line and the message)";
