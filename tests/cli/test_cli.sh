#!/bin/sh
# The command line as a tool: each command's --help, shell completion,
# the manual page, `make install`. TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh

tap_need "$M"

# ---- per-command help ----
for c in run simulate deschedule config policy explain snapshot completion man; do
    "$M" "$c" --help >"$T/$c.help" 2>&1
    rc=$?
    check_eval "$c --help: exit 0, its own usage first" \
        "[ $rc -eq 0 ] && head -n 1 '$T/$c.help' | grep -Eq '^usage: moonsched (\\[)?$c'"
done
check_eval "each command's help is its own (simulate's has no run flags, run's no simulate flags)" \
    "! grep -q -- '--leader-elect' '$T/simulate.help' && ! grep -q -- '--generate' '$T/run.help'"
check_eval "and is short (simulate: $(wc -l <"$T/simulate.help") lines)" "[ $(wc -l <"$T/simulate.help") -lt 40 ]"
"$M" help policy >"$T/help-policy" 2>&1
check "help COMMAND is COMMAND --help" cmp "$T/help-policy" "$T/policy.help"
"$M" simulate --clustr x >/dev/null 2>"$T/err"
check_eval "a usage error shows that command's help, not every command's" \
    "grep -q '^usage: moonsched simulate' '$T/err' && ! grep -q 'usage: moonsched explain' '$T/err'"
"$M" --help >"$T/top.help" 2>&1
check_eval "--help: the commands, then run's flags (kube-scheduler's command line)" \
    "grep -q '^  completion ' '$T/top.help' && grep -q -- '--leader-elect-lease-duration' '$T/top.help'"

# ---- completion ----
"$M" completion bash >"$T/bash"
check "completion bash is valid bash" bash -n "$T/bash"
complete_words() {   # words... (the last one is completed)
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _moonsched; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$T/bash" "$@"
}
check_eval "bash: commands" "[ \"\$(complete_words moonsched sim)\" = simulate ]"
check_eval "bash: the command's flags" "[ \"\$(complete_words moonsched simulate --clu)\" = --cluster ]"
check_eval "bash: not another command's" "[ -z \"\$(complete_words moonsched simulate --leader-elect-l)\" ]"
check_eval "bash: run's flags without a command (kube-scheduler's command line)" \
    "complete_words moonsched --leader-elect-lease | grep -qx -- --leader-elect-lease-duration"
check_eval "bash: the shells of completion" "[ \"\$(complete_words moonsched completion fi)\" = fish ]"
"$M" completion zsh >"$T/zsh"
check_eval "completion zsh: a #compdef file over the same function" \
    "head -n 1 '$T/zsh' | grep -qx '#compdef moonsched' && grep -q '^complete -o filenames -F _moonsched moonsched' '$T/zsh'"
"$M" completion fish >"$T/fish"
check_eval "completion fish: commands and each command's long flags" \
    "grep -q \"__fish_use_subcommand -f -a 'run simulate\" '$T/fish' && grep -qx \"complete -c moonsched -n '__fish_seen_subcommand_from simulate' -l cluster\" '$T/fish'"
# In the shells themselves (Debian's zsh and fish, installed when missing).
if sh tests/ensure-packages.sh zsh fish >"$T/install.log" 2>&1 && command -v zsh >/dev/null && command -v fish >/dev/null; then
    # zsh: the file loaded as a user's .zshrc would (compinit, then the
    # file), and the completion moonsched is registered with called as the
    # completion system calls it for the words typed; compadd, which only
    # works inside the line editor, is replaced by one that prints the
    # candidates matching the word being completed, as compadd keeps them.
    zsh_complete() {   # words... (the last one is completed)
        zsh -f -c 'autoload -U compinit && compinit -u -D && source "$1" || exit 1; shift
            compadd() { local a=${@[(i)-a]} w; (( a < $# )) || return 1
                for w in "${(@P)${@[a+1]}}"; do [[ $w == "$PREFIX"* ]] && print -r -- "$w"; done; }
            compset() { return 1; }
            words=("$@"); CURRENT=$#; PREFIX=${words[-1]}
            [[ -n $_comps[moonsched] ]] || exit 1
            eval "$_comps[moonsched]"' _ "$T/zsh" "$@" 2>&1
    }
    check_eval "zsh: moonsched sim<TAB> is simulate" "[ \"\$(zsh_complete moonsched sim)\" = simulate ]"
    zsh_complete moonsched simulate --c >"$T/zsh-flags"
    check_eval "zsh: simulate --c<TAB> offers simulate's --cluster and --config, no run flag" \
        "[ \"\$(tr '\\n' ' ' <'$T/zsh-flags')\" = '--cluster --config ' ]"
    check_eval "zsh: simulate --<TAB> has no run flag (the command is the first word)" \
        "zsh_complete moonsched simulate -- | grep -qx -- --explain && ! zsh_complete moonsched simulate -- | grep -q -- --leader-elect"
    # fish: complete -C asks fish's own completion engine
    fish_complete() { fish --no-config -c "source '$T/fish'; complete -C '$1'" 2>&1; }
    check_eval "fish: moonsched sim<TAB> is simulate" "[ \"\$(fish_complete 'moonsched sim' | cut -f1)\" = simulate ]"
    fish_complete 'moonsched simulate --' | cut -f1 | sort >"$T/fish-flags"
    "$M" simulate --help | grep -Eo '^  --[a-z-]+' | sed 's/^  //' | sort -u >"$T/simulate-flags"
    check "fish: simulate --<TAB> offers exactly simulate's flags" cmp "$T/fish-flags" "$T/simulate-flags"
else
    skip "zsh and fish completions in the shells" "zsh or fish could not be installed: $(tail -n 1 "$T/install.log")"
fi
"$M" completion tcsh >/dev/null 2>"$T/err"
check_eval "completion of another shell: a usage error (exit $?)" "grep -q 'expected bash, zsh or fish' '$T/err'"

# ---- the manual page ----
"$M" man >"$T/moonsched.1"
check_eval "man: roff that groff reads without a warning" \
    "command -v groff >/dev/null && [ -z \"\$(groff -man -Tutf8 -ww '$T/moonsched.1' 2>&1 >/dev/null)\" ]"
groff -man -Tutf8 "$T/moonsched.1" 2>/dev/null | sed 's/.\x08//g' >"$T/man.txt"
check_eval "man: every command's help, as the commands print it" \
    "grep -q 'leader-elect-lease-duration' '$T/man.txt' && grep -q 'generate SPEC' '$T/man.txt' && grep -q 'completion bash|zsh|fish' '$T/man.txt'"
check_eval "man: the version in the header" "grep -q \"moonsched v\$(cat VERSION)\" '$T/moonsched.1'"

# ---- every flag a command's parser reads: in its help, completion, man page ----
# The long flags quoted in a parser's source ("--name"): the whole file, or
# the functions of main.c that parse that command. Not counted: --help
# (every command's), and the kube-scheduler flags run only warns about
# (run_flags.c's ignored_flags rows, {"--name", true|false, ...}).
parsed_flags() {   # FILE [FUNCTION...]
    _f=$1
    shift
    if [ $# -eq 0 ]; then cat "$_f"; else for _fn in "$@"; do sed -n "/^static int $_fn(/,/^}/p" "$_f"; done; fi |
        grep -v '^ *{"--[a-z0-9-]*", \(true\|false\), ' | grep -o '"--[a-z][a-z0-9-]*"' | tr -d '"' |
        grep -vx -- '--help' | sort -u
}
# Prints each flag of the parser the help, the bash completion (its case
# for the command) or the man page (the command's section) lacks.
flags_missing() {   # COMMAND EXCEPTIONS FILE [FUNCTION...]
    _c=$1 _except=$2
    shift 2
    "$M" "$_c" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$T/in-help"
    sed -n "s/^    $_c) flags=\"\(.*\)\";;\$/\1/p" "$T/bash" | tr ' ' '\n' | sort -u >"$T/in-bash"
    sed -n "/^\.SS $_c\$/,/^\.S[SH] /p" "$T/moonsched.1" | sed 's/\\-/-/g' | grep -o -- '--[a-z][a-z0-9-]*' |
        sort -u >"$T/in-man"
    _missing=0
    for _flag in $(parsed_flags "$@"); do
        case " $_except " in *" $_flag "*) continue ;; esac
        for _where in help bash man; do
            grep -qx -- "$_flag" "$T/in-$_where" || { echo "$_flag: not in the $_where"; _missing=1; }
        done
    done
    [ "$_missing" -eq 0 ] && [ -n "$(parsed_flags "$@")" ]
}
# run: kube-scheduler's deprecated --address and --lock-object-* are read
# (docs/run.md's table) but left out of the help, as upstream hides them.
check "run: every flag run_flags.c reads is in the help, the completion and the man page" \
    flags_missing run "--address --lock-object-name --lock-object-namespace" core/cmd/run_flags.c
check "deschedule: every flag deschedule.c reads is in the help, the completion and the man page" \
    flags_missing deschedule "" core/cmd/deschedule.c
check "simulate: every flag its parser reads is in the help, the completion and the man page" \
    flags_missing simulate "" core/cmd/main.c simulate_arg
for c in config:config_main policy:policy_main explain:explain_arg snapshot:snapshot_main; do
    check "${c%%:*}: every flag its parser reads is in the help, the completion and the man page" \
        flags_missing "${c%%:*}" "" core/cmd/main.c "${c#*:}"
done

# ---- make install ----
make -s install B="$B" DESTDIR="$T/root" PREFIX=/usr >"$T/install.log" 2>&1
check_eval "make install DESTDIR PREFIX (exit $?)" "[ -x '$T/root/usr/bin/moonsched' ]"
check "the installed binary runs" "$T/root/usr/bin/moonsched" --version
check "the manual page" cmp "$T/root/usr/share/man/man1/moonsched.1" "$T/moonsched.1"
check "bash completion" cmp "$T/root/usr/share/bash-completion/completions/moonsched" "$T/bash"
check "zsh completion" test -s "$T/root/usr/share/zsh/site-functions/_moonsched"
check "fish completion" test -s "$T/root/usr/share/fish/vendor_completions.d/moonsched.fish"
check_eval "the shipped policies and their specs" \
    "[ \$(ls '$T/root/usr/share/moonsched/policies' | wc -l) -eq \$(ls policies/*.lua | wc -l) ]"
check_eval "nothing outside DESTDIR" "[ \$(find '$T/root' -mindepth 1 -maxdepth 1 | wc -l) -eq 1 ]"

tap_done
