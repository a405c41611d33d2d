#!/bin/sh
# libmoonsched.so exports the public API only (include/moonsched/): every
# symbol it defines dynamically has the ms_ prefix, and their number stays
# below a bound so that internal functions do not leak back in. Prints the
# count. TAP output. B: the build directory (default: build).
. tests/lib/cli.sh
SO="$B/libmoonsched.so"
MAX_EXPORTS=${MAX_EXPORTS:-200}

tap_need "$SO"
if ! command -v nm >/dev/null 2>&1; then
    skip "exported symbols" "nm is not installed"
    tap_done
    exit
fi

# Defined dynamic symbols, less what the toolchain adds to every library.
nm -D --defined-only "$SO" | awk '{ print $NF }' |
    grep -Ev '^(_init|_fini|_edata|_end|__bss_start|_ITM_.*|__gmon_start__)$' | sort >"$T/exports"
count=$(wc -l <"$T/exports")
grep -v '^ms_' "$T/exports" >"$T/other"
echo "# $count exported symbols"

check "every exported symbol has the ms_ prefix" test ! -s "$T/other"
sed 's/^/# not ms_: /' "$T/other" | head -n 20
check "at most $MAX_EXPORTS exported symbols ($count)" test "$count" -le "$MAX_EXPORTS"
# What the busted specs and the policy kit call through the FFI (lua/kit/moonsched/kit.lua's cdef).
missing=""
for f in ms_interner_new ms_decoder_init ms_json_parse ms_pod_decode ms_node_decode \
    ms_node_info_new ms_node_info_add_pod ms_arena_init ms_lua_runtime_new ms_lua_state_load \
    ms_policy_new ms_policy_ops ms_policy_select_victims ms_policy_pick_preemption ms_policy_pick_devices; do
    grep -qx "$f" "$T/exports" || missing="$missing $f"
done
check "the functions the Lua specs call are exported (missing:${missing:- none})" test -z "$missing"
check "internal functions are not exported (ms_dec_*, ms_queue_*, ms_cache_*)" \
    sh -c "! grep -Eq '^ms_(dec|queue|cache|snapshot|map)_' '$T/exports'"

tap_done
