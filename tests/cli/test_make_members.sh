#!/bin/sh
# The Makefile's libraries hold exactly the objects of today's sources: a
# source removed since the last build takes its object out of
# libmoonsched.a and libmoonsched.so, though no object is newer than them.
# Builds a two-source and then a one-source library in a scratch build
# directory (CORE_SRC given on make's command line stands for the tree's
# sources). TAP output.
. tests/lib/cli.sh

if ! command -v make >/dev/null 2>&1 || ! command -v ar >/dev/null 2>&1; then
    skip "the libraries are built" "make or ar is not installed"
    tap_done
    exit
fi
b="$T/b"
lib() {   # sources...
    make -s B="$b" CORE_SRC="$*" "$b/libmoonsched.a" "$b/libmoonsched.so" >"$T/make.out" 2>&1
}
members() { ar t "$b/libmoonsched.a" | sort | tr '\n' ' '; }

lib core/base/quote.c core/base/suggest.c
check "a library of two sources" [ "$(members)" = "lua_embedded.o quote.o suggest.o " ]
check "the shared library has both" sh -c "nm '$b/libmoonsched.so' | grep -q ' ms_suggest\$'"
lib core/base/quote.c
check "one of them removed: its object leaves the archive" [ "$(members)" = "lua_embedded.o quote.o " ]
check "and the shared library" sh -c "! nm '$b/libmoonsched.so' | grep -q ' ms_suggest\$'"
check "the make succeeded" sh -c "! grep -q 'Error' '$T/make.out'"
lib core/base/quote.c
check "nothing changed: nothing made again" sh -c "! grep -q . '$T/make.out'"

tap_done
