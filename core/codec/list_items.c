/* A List split into its items while it arrives: a lexical scan (strings,
 * escapes, nesting) that copies each element of the top-level "items"
 * array aside and the rest into the envelope. */
#include "codec/list_items.h"

#include <string.h>

#define DEFAULT_MAX_ITEM ((size_t)64 << 20)

void ms_list_items_init(ms_list_items *s, size_t max_item) {
    memset(s, 0, sizeof *s);
    s->max_item = max_item ? max_item : DEFAULT_MAX_ITEM;
}

void ms_list_items_free(ms_list_items *s) { ms_buf_free(&s->item); }

static int item_append(ms_list_items *s, const char *data, size_t n) {
    if (s->item.len + n > s->max_item) return -1;
    ms_buf_append(&s->item, data, n);
    return s->item.failed ? -1 : 0;
}

static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* The end of a string: a member name at depth 1 is remembered as far as
 * telling "items" from the rest. */
static void string_closed(ms_list_items *s) {
    s->in_string = false;
    if (s->depth == 1 && s->key_next) {
        s->key_is_items = s->key_len == 5 && memcmp(s->key, "items", 5) == 0;
        s->key_next = false;
    }
}

int ms_list_items_feed(ms_list_items *s, const char *data, size_t n, ms_buf *envelope, ms_line_fn fn, void *ctx) {
    size_t run = 0;   /* the first byte not yet copied to the item or the envelope */
    for (size_t i = 0; i < n; i++) {
        char c = data[i];
        if (s->in_string) {
            if (s->escape) {
                s->escape = false;
            } else if (c == '\\') {
                s->escape = true;
            } else if (c == '"') {
                string_closed(s);
            } else if (s->depth == 1 && s->key_next) {
                if (s->key_len < sizeof s->key) s->key[s->key_len] = c;
                s->key_len++;
            }
            continue;
        }
        if (is_space(c)) continue;
        if (s->done || (!s->started && c != '{')) return -1;
        bool element_starts = s->in_items && !s->in_item && s->depth == 2;
        switch (c) {
        case '{':
        case '[':
            if (element_starts) {
                ms_buf_append(envelope, data + run, i - run);
                run = i;
                s->in_item = true;
            }
            if (s->depth == 1 && s->value_next && c == '[' && s->key_is_items) s->in_items = true;
            s->value_next = false;
            s->started = true;
            if (++s->depth == 1) s->key_next = true;
            break;
        case '}':
        case ']':
            if (s->depth == 0) return -1;
            if (--s->depth == 2 && s->in_item) {
                if (item_append(s, data + run, i + 1 - run) != 0) return -1;
                run = i + 1;
                s->in_item = false;
                int r = fn(ctx, s->item.data, s->item.len);
                ms_buf_reset(&s->item);
                if (r != 0) return r;
            } else if (s->depth == 1 && s->in_items) {
                s->in_items = false;
            } else if (s->depth == 0) {
                s->done = true;
            }
            break;
        case ',':
            if (s->depth == 1) {
                s->key_next = true;
            } else if (element_starts) {   /* between elements: "items":[] stays valid JSON */
                ms_buf_append(envelope, data + run, i - run);
                run = i + 1;
            }
            break;
        case ':':
            if (s->depth == 1) s->value_next = true;
            break;
        case '"':
            if (element_starts) return -1;
            s->in_string = true;
            s->value_next = false;
            if (s->depth == 1 && s->key_next) s->key_len = 0;
            break;
        default:   /* a number, true, false or null */
            if (element_starts) return -1;
            s->value_next = false;
            break;
        }
    }
    if (s->in_item) return item_append(s, data + run, n - run);
    ms_buf_append(envelope, data + run, n - run);
    return envelope->failed ? -1 : 0;
}
