/* A value quoted for an error message, as Go's %q writes it: in double
 * quotes, with \" \\ \n \t ... and \xNN for control bytes and bytes that are
 * not UTF-8. Upstream's field errors quote the bad value this way
 * (`Invalid value: "1.1.1": ...`); values longer than MS_QUOTE_KEEP bytes
 * are cut there and end in "..." so one hostile value cannot flood a log. */
#ifndef MOONSCHED_BASE_QUOTE_H
#define MOONSCHED_BASE_QUOTE_H

#include <stddef.h>

#define MS_QUOTE_KEEP 64
/* Every kept byte as \xNN, the quotes, "..." and the NUL. */
#define MS_QUOTE_SIZE (MS_QUOTE_KEEP * 4 + 6)

/* Writes s[0..n) quoted into out and returns out. */
const char *ms_quote_n(char out[MS_QUOTE_SIZE], const char *s, size_t n);
/* The same for a NUL-terminated string; NULL quotes as "". */
const char *ms_quote(char out[MS_QUOTE_SIZE], const char *s);

#endif
