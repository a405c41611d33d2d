/* String interning: label keys and values, namespaces, names, taint keys and
 * resource names are stored once and compared as integers.
 *
 * Insertion is thread-safe (decoders run off the scheduler thread); reading
 * the text of an id is lock-free because string storage never moves. */
#ifndef MOONSCHED_INTERN_H
#define MOONSCHED_INTERN_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(default)

/* 0 means "absent"; the empty string has an id of its own (MS_STR_EMPTY). */
typedef uint32_t ms_str;
#define MS_STR_NONE 0u
#define MS_STR_EMPTY 1u

typedef struct ms_interner ms_interner;

ms_interner *ms_interner_new(void);
void ms_interner_free(ms_interner *in);

/* Returns MS_STR_NONE only when out of memory. */
ms_str ms_intern(ms_interner *in, const char *s, size_t len);
ms_str ms_intern_cstr(ms_interner *in, const char *s);
/* Lookup without inserting: MS_STR_NONE when the string was never interned. */
ms_str ms_intern_find(ms_interner *in, const char *s, size_t len);

/* NUL-terminated text of id; "" for MS_STR_NONE. Valid until ms_interner_free. */
const char *ms_str_get(const ms_interner *in, ms_str id);
size_t ms_str_len(const ms_interner *in, ms_str id);
/* Number of ids handed out (ids are dense: 1..count). */
uint32_t ms_interner_count(const ms_interner *in);

#pragma GCC visibility pop

#endif
