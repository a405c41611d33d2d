/* String interning: label keys and values, namespaces, names, taint keys and
 * resource names are stored once and compared as integers.
 *
 * Insertion is thread-safe (decoders run off the scheduler thread); reading
 * the text of an id is lock-free because string storage never moves while
 * the string is interned.
 *
 * Most strings are interned for good: there are few of them (keys, nodes,
 * namespaces). Strings that belong to one short-lived object (a pod's name)
 * are interned with a counted reference instead: the last release frees the
 * id and its text, so memory follows the live cluster, not its history. A
 * string interned both ways stays for good. */
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
/* The same, holding one counted reference that ms_str_release gives back.
 * Whoever keeps such an id beyond the object's life (explain records)
 * takes a reference of its own with ms_str_retain. The id is handed out
 * again only after many later releases. */
ms_str ms_intern_counted(ms_interner *in, const char *s, size_t len);
void ms_str_retain(ms_interner *in, ms_str id);
/* No effect on MS_STR_NONE and on strings interned for good. */
void ms_str_release(ms_interner *in, ms_str id);
/* Lookup without inserting: MS_STR_NONE when the string was never interned. */
ms_str ms_intern_find(ms_interner *in, const char *s, size_t len);

/* NUL-terminated text of id; "" for MS_STR_NONE. Valid until ms_interner_free,
 * or until the id is reused once released. */
const char *ms_str_get(const ms_interner *in, ms_str id);
size_t ms_str_len(const ms_interner *in, ms_str id);
/* Highest id handed out: every id is in 1..count (released ids are reused
 * below it). */
uint32_t ms_interner_count(const ms_interner *in);
/* Strings interned now (released ones not counted). */
uint32_t ms_interner_live(ms_interner *in);

#pragma GCC visibility pop

#endif
