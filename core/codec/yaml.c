/* YAML text to cJSON documents, built from libyaml's event stream.
 *
 * Plain scalars are resolved with the YAML 1.2 core schema: null (~, null,
 * empty), booleans (true/false, any of the three capitalisations), numbers
 * (decimal, 0o octal, 0x hex, floats, .inf, .nan). A number becomes a cJSON
 * number whose valuestring also holds the exact source text, so quantities
 * ("cpu: 0.1") and large integers keep their exact value. Everything else,
 * and every quoted or block scalar, is a string. Explicit !!str / !!int /
 * !!float / !!bool / !!null tags are honoured.
 *
 * Anchors and aliases are supported (an alias is a copy of its node), with
 * a budget on the nodes aliases may create and on nesting depth, so that a
 * small hostile input cannot exhaust memory or the stack. */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "codec/yaml.h"

#include "base/array.h"
#include "base/quote.h"
#include "moonsched/decode.h"

/* yaml.v2's words, which Kubernetes' Go tools print */
#define DUPLICATE_KEY "yaml: unmarshal errors:"

#define MAX_DEPTH 512                 /* cJSON_Delete and cJSON_Duplicate recurse */
#define MAX_ALIAS_NODES (1u << 20)    /* nodes that aliases may copy, per stream */

typedef struct frame {
    cJSON *node;
    char *key;          /* a mapping's pending key (cJSON_malloc'd) */
    char *anchor;
    size_t start;       /* node count when the collection opened */
    size_t height;      /* levels below and including this node */
} frame;

typedef struct anchor {
    char *name;
    const cJSON *node;
    size_t count;
    size_t height;
} anchor;

typedef struct builder {
    frame *stack;
    uint32_t depth, cap;
    anchor *anchors;
    uint32_t nanchors, canchors;
    cJSON *root;
    size_t nodes;
    size_t alias_nodes;
    ms_error *err;
} builder;

static ms_rc fail_mark(builder *b, yaml_mark_t m, const char *what) {
    return ms_error_set(b->err, MS_EINVAL, "line %zu, column %zu: %s", m.line + 1, m.column + 1, what);
}

static ms_rc nomem(builder *b) { return ms_error_set(b->err, MS_ENOMEM, "out of memory"); }

static char *dup_text(const char *s, size_t len) {
    char *p = cJSON_malloc(len + 1);
    if (!p) return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

/* ---- scalar resolution ---- */

static bool all_digits(const char *s, const char *end, const char *set) {
    if (s == end) return false;
    for (; s < end; s++)
        if (!strchr(set, *s)) return false;
    return true;
}

/* YAML 1.2 core schema number: the value, or false when s is not one. */
static bool resolve_number(const char *s, size_t len, double *out) {
    const char *end = s + len;
    if (memchr(s, '\0', len)) return false;
    if (len > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
        const char *set = s[1] == 'o' ? "01234567" : "0123456789abcdefABCDEF";
        if (!all_digits(s + 2, end, set)) return false;
        double v = 0;
        for (const char *p = s + 2; p < end; p++) {
            int dgt = *p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10;
            v = v * (s[1] == 'o' ? 8 : 16) + dgt;
        }
        *out = v;
        return true;
    }
    const char *p = s;
    bool neg = false;
    if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
    size_t rest = (size_t)(end - p);
    if (rest == 4 && p[0] == '.' &&
        (memcmp(p, ".inf", 4) == 0 || memcmp(p, ".Inf", 4) == 0 || memcmp(p, ".INF", 4) == 0)) {
        *out = neg ? -INFINITY : INFINITY;
        return true;
    }
    if (p == s && rest == 4 &&
        (memcmp(p, ".nan", 4) == 0 || memcmp(p, ".NaN", 4) == 0 || memcmp(p, ".NAN", 4) == 0)) {
        *out = NAN;
        return true;
    }
    /* [0-9]+(\.[0-9]*)? | \.[0-9]+, then an optional exponent */
    const char *q = p;
    size_t int_digits = 0, frac_digits = 0;
    while (q < end && *q >= '0' && *q <= '9') q++, int_digits++;
    if (q < end && *q == '.') {
        q++;
        while (q < end && *q >= '0' && *q <= '9') q++, frac_digits++;
    }
    if (int_digits == 0 && frac_digits == 0) return false;
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '-' || *q == '+')) q++;
        const char *e = q;
        while (q < end && *q >= '0' && *q <= '9') q++;
        if (q == e) return false;
    }
    if (q != end) return false;
    char buf[64];
    if (len < sizeof buf) {
        memcpy(buf, s, len);
        buf[len] = '\0';
        *out = strtod(buf, NULL);
    } else {
        char *tmp = dup_text(s, len);
        if (!tmp) return false;
        *out = strtod(tmp, NULL);
        cJSON_free(tmp);
    }
    return true;
}

static bool text_is(const char *s, size_t len, const char *a, const char *b, const char *c) {
    size_t n = strlen(a);
    return len == n && (memcmp(s, a, n) == 0 || memcmp(s, b, n) == 0 || memcmp(s, c, n) == 0);
}

static bool is_null(const char *s, size_t len) {
    return len == 0 || (len == 1 && s[0] == '~') || text_is(s, len, "null", "Null", "NULL");
}

static cJSON *number_node(const char *s, size_t len, double v) {
    cJSON *j = cJSON_CreateNumber(v);
    if (!j) return NULL;
    if (!(j->valuestring = dup_text(s, len))) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

#define TAG_PREFIX "tag:yaml.org,2002:"

/* NULL with *bad set when an explicit tag does not fit the text. */
static cJSON *scalar_node(const yaml_event_t *ev, bool *bad) {
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    double v;
    *bad = false;
    if (tag && strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) == 0) {
        const char *t = tag + strlen(TAG_PREFIX);
        if (strcmp(t, "str") == 0) return cJSON_CreateString(s);
        if (strcmp(t, "null") == 0) {
            if (is_null(s, len)) return cJSON_CreateNull();
        } else if (strcmp(t, "bool") == 0) {
            if (text_is(s, len, "true", "True", "TRUE")) return cJSON_CreateTrue();
            if (text_is(s, len, "false", "False", "FALSE")) return cJSON_CreateFalse();
        } else if (strcmp(t, "int") == 0 || strcmp(t, "float") == 0) {
            if (resolve_number(s, len, &v)) return number_node(s, len, v);
        } else {
            return cJSON_CreateString(s);   /* !!binary, !!timestamp, ...: the text */
        }
        *bad = true;
        return NULL;
    }
    if (!plain || (tag && strcmp(tag, "!") == 0)) return cJSON_CreateString(s);
    if (is_null(s, len)) return cJSON_CreateNull();
    if (text_is(s, len, "true", "True", "TRUE")) return cJSON_CreateTrue();
    if (text_is(s, len, "false", "False", "FALSE")) return cJSON_CreateFalse();
    if (resolve_number(s, len, &v)) return number_node(s, len, v);
    return cJSON_CreateString(s);
}

/* ---- tree building ---- */

static bool awaiting_key(const builder *b) {
    if (!b->depth) return false;
    const frame *f = &b->stack[b->depth - 1];
    return cJSON_IsObject(f->node) && !f->key;
}

/* Hands a finished node to its parent (or makes it the document root).
 * Takes ownership of node in every case. */
static ms_rc attach(builder *b, cJSON *node, size_t height, yaml_mark_t m) {
    if (b->depth + height > MAX_DEPTH) {
        cJSON_Delete(node);
        return fail_mark(b, m, "nesting too deep");
    }
    if (node->string && !(node->type & cJSON_StringIsConst)) cJSON_free(node->string);
    node->string = NULL;
    if (!b->depth) {
        b->root = node;
        return MS_OK;
    }
    frame *f = &b->stack[b->depth - 1];
    if (height + 1 > f->height) f->height = height + 1;
    if (cJSON_IsObject(f->node)) {
        node->string = f->key;
        f->key = NULL;
    }
    /* Objects and arrays share the child list; the key travels in ->string. */
    cJSON_AddItemToArray(f->node, node);
    return MS_OK;
}

static ms_rc add_anchor(builder *b, const char *name, const cJSON *node, size_t count, size_t height) {
    if (!ms_array_grow((void **)&b->anchors, &b->canchors, b->nanchors + 1, sizeof *b->anchors))
        return nomem(b);
    char *copy = strdup(name);
    if (!copy) return nomem(b);
    b->anchors[b->nanchors++] = (anchor){copy, node, count, height};
    return MS_OK;
}

static void clear_anchors(builder *b) {
    for (uint32_t i = 0; i < b->nanchors; i++) free(b->anchors[i].name);
    b->nanchors = 0;
}

static ms_rc on_scalar(builder *b, const yaml_event_t *ev) {
    if (awaiting_key(b)) {
        frame *f = &b->stack[b->depth - 1];
        if (!(f->key = dup_text((const char *)ev->data.scalar.value, ev->data.scalar.length)))
            return nomem(b);
        if (cJSON_GetObjectItemCaseSensitive(f->node, f->key)) {
            char q[MS_QUOTE_SIZE];
            return ms_error_set(b->err, MS_EINVAL, DUPLICATE_KEY "\n  line %zu: key %s already set in map",
                                ev->start_mark.line + 1, ms_quote(q, f->key));
        }
        return MS_OK;
    }
    bool bad;
    cJSON *node = scalar_node(ev, &bad);
    if (!node) return bad ? fail_mark(b, ev->start_mark, "value does not match its tag") : nomem(b);
    b->nodes++;
    const char *name = (const char *)ev->data.scalar.anchor;
    ms_rc rc = attach(b, node, 1, ev->start_mark);
    if (rc == MS_OK && name) rc = add_anchor(b, name, node, 1, 1);
    return rc;
}

static ms_rc on_start(builder *b, const yaml_event_t *ev, bool mapping) {
    if (awaiting_key(b)) return fail_mark(b, ev->start_mark, "complex mapping keys are not supported");
    if (b->depth + 1 > MAX_DEPTH) return fail_mark(b, ev->start_mark, "nesting too deep");
    if (!ms_array_grow((void **)&b->stack, &b->cap, b->depth + 1, sizeof *b->stack))
        return nomem(b);
    const char *name = (const char *)(mapping ? ev->data.mapping_start.anchor
                                              : ev->data.sequence_start.anchor);
    frame *f = &b->stack[b->depth];
    memset(f, 0, sizeof *f);
    if (!(f->node = mapping ? cJSON_CreateObject() : cJSON_CreateArray())) return nomem(b);
    if (name && !(f->anchor = strdup(name))) {
        cJSON_Delete(f->node);
        return nomem(b);
    }
    f->start = b->nodes++;
    f->height = 1;
    b->depth++;
    return MS_OK;
}

static ms_rc on_end(builder *b, const yaml_event_t *ev) {
    frame f = b->stack[--b->depth];
    if (f.key) cJSON_free(f.key);   /* cannot happen with a well-formed event stream */
    ms_rc rc = attach(b, f.node, f.height, ev->start_mark);
    if (rc == MS_OK && f.anchor) rc = add_anchor(b, f.anchor, f.node, b->nodes - f.start, f.height);
    free(f.anchor);
    return rc;
}

static ms_rc on_alias(builder *b, const yaml_event_t *ev) {
    if (awaiting_key(b)) return fail_mark(b, ev->start_mark, "aliases as mapping keys are not supported");
    const char *name = (const char *)ev->data.alias.anchor;
    const anchor *a = NULL;
    for (uint32_t i = b->nanchors; i-- > 0;)
        if (strcmp(b->anchors[i].name, name) == 0) {
            a = &b->anchors[i];
            break;
        }
    if (!a) {
        char msg[MS_QUOTE_SIZE + 32], q[MS_QUOTE_SIZE];
        snprintf(msg, sizeof msg, "unknown anchor %s", ms_quote(q, name));
        return fail_mark(b, ev->start_mark, msg);
    }
    if (a->count > MAX_ALIAS_NODES - b->alias_nodes)
        return fail_mark(b, ev->start_mark, "aliases expand to too many nodes");
    if (b->depth + a->height > MAX_DEPTH) return fail_mark(b, ev->start_mark, "nesting too deep");
    b->alias_nodes += a->count;
    cJSON *copy = cJSON_Duplicate(a->node, 1);
    if (!copy) return nomem(b);
    b->nodes += a->count;
    return attach(b, copy, a->height, ev->start_mark);
}

static ms_rc parser_error(builder *b, const yaml_parser_t *p) {
    const char *problem = p->problem ? p->problem : "invalid YAML";
    switch (p->error) {
    case YAML_MEMORY_ERROR: return nomem(b);
    case YAML_READER_ERROR:
        return ms_error_set(b->err, MS_EINVAL, "byte %zu: %s", p->problem_offset, problem);
    default:
        if (p->context)
            return ms_error_set(b->err, MS_EINVAL, "line %zu, column %zu: %s (%s at line %zu)",
                                p->problem_mark.line + 1, p->problem_mark.column + 1, problem,
                                p->context, p->context_mark.line + 1);
        return ms_error_set(b->err, MS_EINVAL, "line %zu, column %zu: %s", p->problem_mark.line + 1,
                            p->problem_mark.column + 1, problem);
    }
}

static void builder_reset(builder *b) {
    while (b->depth) {
        frame *f = &b->stack[--b->depth];
        cJSON_Delete(f->node);
        if (f->key) cJSON_free(f->key);
        free(f->anchor);
    }
    cJSON_Delete(b->root);
    b->root = NULL;
    clear_anchors(b);
}

ms_rc ms_yaml_parse(const char *buf, size_t len, cJSON ***docs, size_t *ndocs, ms_error *err) {
    *docs = NULL;
    *ndocs = 0;
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) return ms_error_set(err, MS_ENOMEM, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    builder b = {.err = err};
    cJSON **v = NULL;
    uint32_t n = 0, cap = 0;   /* documents: bounded by memory, far below 2^32 */
    ms_rc rc = MS_OK;
    bool done = false;
    while (!done && rc == MS_OK) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = parser_error(&b, &parser);
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT: done = true; break;
        case YAML_DOCUMENT_START_EVENT: b.root = NULL; break;
        case YAML_DOCUMENT_END_EVENT:
            if (!b.root && !(b.root = cJSON_CreateNull())) {
                rc = nomem(&b);
                break;
            }
            if (!ms_array_grow((void **)&v, &cap, n + 1, sizeof *v)) {
                rc = nomem(&b);
                break;
            }
            v[n++] = b.root;
            b.root = NULL;
            clear_anchors(&b);
            break;
        case YAML_SCALAR_EVENT: rc = on_scalar(&b, &ev); break;
        case YAML_SEQUENCE_START_EVENT: rc = on_start(&b, &ev, false); break;
        case YAML_MAPPING_START_EVENT: rc = on_start(&b, &ev, true); break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: rc = on_end(&b, &ev); break;
        case YAML_ALIAS_EVENT: rc = on_alias(&b, &ev); break;
        default: break;
        }
        yaml_event_delete(&ev);
    }
    builder_reset(&b);
    free(b.stack);
    free(b.anchors);
    yaml_parser_delete(&parser);
    if (rc != MS_OK) {
        for (size_t i = 0; i < n; i++) cJSON_Delete(v[i]);
        free(v);
        return rc;
    }
    *docs = v;
    *ndocs = n;
    return MS_OK;
}

bool ms_yaml_duplicate_key(const ms_error *err) {
    return strncmp(err->msg, DUPLICATE_KEY "\n", sizeof DUPLICATE_KEY) == 0;
}
