/**
 * When `bylaw` may print progress lines: only to a terminal (stderr is a TTY), never in CI
 * (`CI` set to anything but "" / "false" / "0", as CI services set it), and never when stdout carries
 * a machine format (json, yaml, markdown, junit, sarif, bylaw-json, bylaw-yaml) that a script or a CI step reads.
 */
interface ProgressContext {
  readonly stderrIsTty: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}

const MACHINE_FORMATS = new Set(["json", "junit", "sarif", "yaml", "markdown", "bylaw-json", "bylaw-yaml"]);

export function isCi(env: Readonly<Record<string, string | undefined>>): boolean {
  const ci = env["CI"];
  return ci !== undefined && ci !== "" && ci.toLowerCase() !== "false" && ci !== "0";
}

export function progressAllowed(ctx: ProgressContext, outputFormat: string): boolean {
  return ctx.stderrIsTty && !isCi(ctx.env) && !MACHINE_FORMATS.has(outputFormat);
}
