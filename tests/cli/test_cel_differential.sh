#!/bin/sh
# moonsched's CEL interpreter against a maintained CEL implementation
# (@marcbachmann/cel-js from the npm registry, installed at test time into
# the cache outside the repository, used as the oracle only): generated
# device selectors on generated devices, seeded, must give the same
# outcome (true, false or an error). TAP output.
# B: the build directory (default: build).
. tests/lib/cli.sh

tap_need "$B/libmoonsched.a"
CELJS_VERSION=8.0.0
CACHE=${MOONSCHED_CACHE:-$HOME/.cache/moonsched}/cel-js-$CELJS_VERSION
PER_SEED=${CEL_CASES:-3000}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    skip "the differential run" "node and npm are not installed"
    tap_done
    exit 0
fi
if [ ! -f "$CACHE/node_modules/@marcbachmann/cel-js/package.json" ]; then
    mkdir -p "$CACHE"
    if ! npm install --prefix "$CACHE" --no-audit --no-fund --silent "@marcbachmann/cel-js@$CELJS_VERSION" \
        >"$T/npm.log" 2>&1; then
        skip "the differential run" "npm could not install @marcbachmann/cel-js@$CELJS_VERSION"
        tap_done
        exit 0
    fi
fi
check "the oracle is @marcbachmann/cel-js $CELJS_VERSION" \
    grep -q "\"version\": \"$CELJS_VERSION\"" "$CACHE/node_modules/@marcbachmann/cel-js/package.json"

# shellcheck disable=SC2046
if ! ${CC:-cc} -std=c11 -D_GNU_SOURCE -O1 -Iinclude -Icore -o "$T/cel_eval" tests/cli/cel_eval.c "$B/libmoonsched.a" \
    $(pkg-config --cflags --libs libcjson) -lyaml -lm -lpthread 2>"$T/cc.err"; then
    not_ok "the evaluator driver builds" "$(cat "$T/cc.err")"
    tap_done
    exit 1
fi

for seed in 1 42 1234 987654321; do
    node tests/cli/cel_oracle.mjs "$CACHE" "$seed" "$PER_SEED" >"$T/cases.$seed"
    check "seed $seed: $PER_SEED cases generated and judged by cel-js" \
        sh -c "[ \"\$(wc -l <'$T/cases.$seed')\" -eq $PER_SEED ]"
    "$T/cel_eval" <"$T/cases.$seed" >"$T/diff.$seed"
    check "seed $seed: moonsched gives cel-js's outcome on every case ($(tail -n 1 "$T/diff.$seed"))" \
        sh -c "cat '$T/diff.$seed'; tail -n 1 '$T/diff.$seed' | grep -qx 'cases $PER_SEED differ 0'"
done
# Not a trivial agreement: the cases reach all three outcomes.
check "the cases include true, false and errors" \
    sh -c "cut -f3 '$T'/cases.* | sort -u | tr '\n' ' ' | grep -qx 'error false true '"

tap_done
