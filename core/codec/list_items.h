/* The items of a List answer one at a time, as its bytes arrive: a LIST
 * served whole from the API server's watch cache (resourceVersion=0) is
 * one document of every object (some 2 KiB a pod), and decoding it as one
 * tree would hold the whole answer and its tree at once. Only the
 * top-level object's "items" array is split; everything else (kind,
 * apiVersion, metadata) is kept as the envelope, with "items":[] left
 * empty, small enough to parse whole afterwards. */
#ifndef MOONSCHED_LIST_ITEMS_H
#define MOONSCHED_LIST_ITEMS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/line_splitter.h"

typedef struct ms_list_items {
    ms_buf item;            /* the element being read */
    size_t max_item;
    int depth;              /* of objects and arrays around the next byte */
    bool in_string, escape;
    bool started, done;     /* the top-level object opened; closed */
    bool key_next;          /* at depth 1: the next string is a member name */
    bool key_is_items;      /* the last member name at depth 1 was "items" */
    bool value_next;        /* at depth 1: after the ':' of that member */
    bool in_items;          /* inside the top-level "items" array */
    bool in_item;           /* inside one of its elements */
    char key[8];            /* the member name read so far (enough for "items") */
    size_t key_len;
} ms_list_items;

/* max_item 0: 64 MiB. */
void ms_list_items_init(ms_list_items *s, size_t max_item);
/* Each element of the top-level "items" array goes to fn whole,
 * NUL-terminated and writable for the call only (a non-zero return stops:
 * feed returns it); every other byte of the document is appended to
 * envelope. Returns 0, fn's non-zero value, or -1 when the document is
 * not a JSON object, an element is not an object or array or exceeds
 * max_item, or memory runs out. */
int ms_list_items_feed(ms_list_items *s, const char *data, size_t n, ms_buf *envelope, ms_line_fn fn, void *ctx);
/* The top-level object was closed (an answer that ends before is cut). */
static inline bool ms_list_items_complete(const ms_list_items *s) { return s->done; }
void ms_list_items_free(ms_list_items *s);

#endif
