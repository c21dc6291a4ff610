/** A usage error as every command prints it: one line saying what is wrong, then where help is. */
export function usageLine(command: string, message: string): string {
  const first = message.split("\n")[0] ?? message;
  return `bylaw ${command}: ${plain(first)}\nRun \`bylaw ${command} --help\` for usage.`;
}

/** node:util parseArgs' messages, said the way Bylaw's own are (its advice on "--" does not fit a flag typo). */
function plain(message: string): string {
  const unknown = /^Unknown option '([^']+)'\. To specify a positional argument/.exec(message);
  if (unknown !== null) return `unknown flag ${unknown[1]}`;
  const missing = /^Option '([^']+?)(?: <value>)?' argument missing$/.exec(message);
  if (missing !== null) return `${missing[1]} needs a value`;
  const noValue = /^Option '([^']+)' does not take an argument$/.exec(message);
  if (noValue !== null) return `${noValue[1]} takes no value`;
  return message;
}
