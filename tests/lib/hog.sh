# shellcheck shell=sh
# A CPU hog for the suites whose checks must hold on a loaded machine (the
# other core kept busy): hog_start starts one busy loop, its PID in
# hog_pid; hog_stop ends it and waits for it. A hog never outlives the
# suite that started it: the loop itself checks that the suite's shell is
# there, so it ends on its own however the suite ends (an exit without
# hog_stop, INT, TERM, even KILL), and the suite's EXIT trap may call
# hog_stop to end it at once. Sourced; POSIX sh.
hog_pid=
hog_start() {
    # $$ is the suite's shell, in the subshell too; kill is a builtin, so
    # the loop stays busy without forking.
    ( while kill -0 $$ 2>/dev/null; do :; done ) &
    hog_pid=$!
}
hog_stop() {
    [ -n "$hog_pid" ] || return 0
    kill "$hog_pid" 2>/dev/null
    wait "$hog_pid" 2>/dev/null
    hog_pid=
}
