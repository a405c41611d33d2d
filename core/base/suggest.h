/* "did you mean": the known name nearest a misspelt one. */
#ifndef MOONSCHED_BASE_SUGGEST_H
#define MOONSCHED_BASE_SUGGEST_H

#include <stddef.h>

/* Edits (insertions, deletions, substitutions, and swaps of two adjacent
 * characters) that turn a into b, counting no further than max: the
 * result is max + 1 when more are needed. Bytes are compared exactly. */
size_t ms_edit_distance(const char *a, const char *b, size_t max);

/* The candidate nearest word, or NULL when none is close enough to be
 * what was meant: one edit for words of up to 4 bytes, two up to 8,
 * three beyond; never word itself. The first of equally near ones wins.
 * candidates may hold NULLs (skipped). */
const char *ms_suggest(const char *word, const char *const *candidates, size_t n);

#endif
