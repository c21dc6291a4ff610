/** Kyverno's exact message shapes for validate results (spec §4.6). */

export function passMessage(rule: string): string {
  return `validation rule '${rule}' passed.`;
}

export function anyPatternPassMessage(rule: string, index: number): string {
  return `validation rule '${rule}' anyPattern[${index}] passed.`;
}

function withDot(message: string): string {
  return message.endsWith(".") ? message : `${message}.`;
}

export function patternFailMessage(rule: string, message: string, path: string): string {
  return message === ""
    ? `validation error: rule ${rule} failed at path ${path}`
    : `validation error: ${withDot(message)} rule ${rule} failed at path ${path}`;
}

export function messageSubstitutionError(rule: string, detail: string): string {
  return `validation error: variables substitution error in rule ${rule} execution error: ${detail}`;
}
