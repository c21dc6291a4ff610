# What the start scripts (cluster.sh, monitoring/sinks.sh) know of a process they started in the
# background: DIR/pids/<component>.pid holds its pid and the binary it was started as. Sourced.

# The pid recorded for a component, if that process is still the binary we started.
live_pid() { # <dir> <component>
  local file="$1/pids/$2.pid" pid exe
  [[ -f "$file" ]] || return 1
  { read -r pid && read -r exe; } <"$file" || return 1
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" == "$exe"* ]] || return 1
  echo "$pid"
}

# Whether a component started in DIR has exited: its recorded process is gone, or runs another binary.
# Between `start`'s fork and its exec the process still runs this shell (or setsid), and its log may not
# exist yet: that is not an exit (a restart under load was once reported as one).
exited() { # <dir> <component>
  local file="$1/pids/$2.pid" pid exe now
  [[ -f "$file" ]] || return 1
  { read -r pid && read -r exe; } <"$file" || return 0
  gone "$pid" && return 0
  now="$(readlink "/proc/$pid/exe" 2>/dev/null)" || return 0
  [[ "$now" == "$exe"* || "$now" == "$(readlink -f "$BASH")" || "$now" == */setsid ]] && return 1
  return 0
}

# Whether a process is gone: no longer in /proc, or a zombie (it has exited; its parent reaps it).
# While a process exits, /proc/PID/exe is already unreadable, so live_pid alone is not enough.
gone() { # <pid>
  local stat
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  stat="${stat##*) }"
  [[ "${stat:0:1}" == Z ]]
}
