# Step 5 of scripts/setup.sh: `mnemara` runnable from any directory, as the README's tour uses it.
# A symlink to bin/mnemara.js in a folder on PATH: /usr/local/bin as root (what `npm link` would write, without
# npm re-installing the package), else ~/.local/bin when that is on PATH. Never replaces a `mnemara` that
# belongs to another checkout still on disk; says how to use this one instead.

on_path() { case ":$PATH:" in *":$1:"*) return 0 ;; *) return 1 ;; esac; }

setup_command() {
  local t0 target dir current; t0=$(now_ms)
  target="$(pwd)/bin/mnemara.js"
  current=$(command -v mnemara 2>/dev/null || true)
  if [ -n "$current" ] && [ "$(readlink -f "$current")" = "$(readlink -f "$target")" ]; then
    record command "mnemara → $current (kept)" "$t0"
    return
  fi
  if [ -n "$current" ] && [ -e "$current" ] && [ "${MNEMARA_SETUP_RELINK:-0}" != 1 ]; then
    record command "mnemara is another checkout's: $(readlink -f "$current")" "$t0"
    detail "to use this checkout's: MNEMARA_SETUP_RELINK=1 bash scripts/setup.sh, or export PATH=\"$(pwd)/bin:\$PATH\""
    printf '  (this checkout: export PATH="%s/bin:$PATH", or MNEMARA_SETUP_RELINK=1 npm run setup)\n' "$(pwd)"
    return
  fi
  for dir in /usr/local/bin "$HOME/.local/bin"; do
    on_path "$dir" || continue
    if [ "$dir" = "$HOME/.local/bin" ]; then mkdir -p "$dir" 2>/dev/null || continue; fi
    [ -w "$dir" ] || continue
    ln -sfn "$target" "$dir/mnemara" && {
      record command "mnemara → $dir/mnemara (runs this checkout)" "$t0"
      return
    }
  done
  record command "not linked: no folder on PATH is writable" "$t0"
  printf '  run it as: %s/bin/mnemara.js, or export PATH="%s/bin:$PATH" (bin/mnemara links to it)\n' "$(pwd)" "$(pwd)"
}
