/**
 * Shell completion scripts for bash, zsh and fish, generated from the command list: command names,
 * each command's second words (templates, targets), and the long flags its --help lists. File names
 * complete where no flag is being typed.
 */
export interface CompletionCommand {
  readonly name: string;
  readonly summary: string;
  readonly words: readonly string[];
  readonly flags: readonly string[];
}

const quote = (s: string): string => `'${s.replaceAll("'", "'\\''")}'`;

export function bashScript(cmds: readonly CompletionCommand[]): string {
  const cases = cmds
    .map((c) => `    ${c.name}) words=${quote(c.words.join(" "))}; opts=${quote(c.flags.join(" "))} ;;`)
    .join("\n");
  return `# bash completion for bylaw: source it, or save it as /etc/bash_completion.d/bylaw
_bylaw() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" words="" opts=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W ${quote(["help", ...cmds.map((c) => c.name), "--help", "--version"].join(" "))} -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
  elif [ "$COMP_CWORD" -eq 2 ] && [ -n "$words" ]; then
    COMPREPLY=( $(compgen -W "$words" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -o default -F _bylaw bylaw
complete -o default -F _bylaw kubectl-bylaw
`;
}

export function zshScript(cmds: readonly CompletionCommand[]): string {
  const cases = cmds
    .map(
      (c) =>
        `    ${c.name})\n      words_=(${c.words.map(quote).join(" ")}); opts_=(${c.flags.map(quote).join(" ")}) ;;`,
    )
    .join("\n");
  return `#compdef bylaw kubectl-bylaw
# zsh completion for bylaw: save it as _bylaw in a folder on $fpath, or source it after compinit
_bylaw() {
  local -a words_ opts_
  if (( CURRENT == 2 )); then
    local -a cmds_=(${cmds.map((c) => quote(`${c.name}:${c.summary.replaceAll(":", "\\:")}`)).join(" ")})
    _describe 'command' cmds_
    return
  fi
  case $words[2] in
${cases}
  esac
  if [[ $words[CURRENT] == -* ]]; then
    compadd -- $opts_
  elif (( CURRENT == 3 )) && (( \${#words_} > 0 )); then
    compadd -- $words_
  else
    _files
  fi
}
# Autoloaded from $fpath this file is _bylaw's body: complete now. Sourced: register the function.
if [[ $funcstack[1] == _bylaw ]]; then
  _bylaw "$@"
else
  compdef _bylaw bylaw kubectl-bylaw
fi
`;
}

export function fishScript(cmds: readonly CompletionCommand[]): string {
  const lines = ["# fish completion for bylaw: save it as ~/.config/fish/completions/bylaw.fish"];
  const all = cmds.map((c) => c.name).join(" ");
  for (const c of cmds) {
    lines.push(
      `complete -c bylaw -f -n "not __fish_seen_subcommand_from ${all}" -a ${quote(c.name)} -d ${quote(c.summary)}`,
    );
    for (const w of c.words)
      lines.push(`complete -c bylaw -f -n "__fish_seen_subcommand_from ${c.name}" -a ${quote(w)}`);
    for (const f of c.flags)
      lines.push(`complete -c bylaw -n "__fish_seen_subcommand_from ${c.name}" -l ${f.replace(/^--/, "")}`);
  }
  lines.push("");
  return lines.join("\n");
}
