/* Scheduler extenders over HTTP: requests built as upstream's Go structs
 * marshal, answers read as Go's encoding/json reads them. The calls go
 * through the HTTP caller the scheduler was given (base/http_call.h; the
 * client's endpoint keeps the connections alive across calls and runs the
 * prioritize calls of several extenders at once).
 *
 * Everything here runs on the scheduler thread, in cycles whose pod some
 * extender is interested in; the per-node work is building the request
 * text and reading the answer, both far cheaper than the round trip. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/map.h"
#include "base/quote.h"
#include "moonsched/decode.h"
#include "moonsched/plugin.h"
#include "scheduler/extender.h"
#include "scheduler/extender_answers.h"

enum { VERB_FILTER = 0, VERB_PRIORITIZE, VERB_BIND, VERB_PREEMPT, NVERBS };
static const char *const verb_names[NVERBS] = {"filter", "prioritize", "bind", "preempt"};

typedef struct ext {
    ms_extender_config c;          /* deep copy */
    ms_http_tls tls;               /* client-go's reading of c.tls, pointing into c */
    char *url[NVERBS];             /* the URL as configured */
    uint32_t nmanaged;
    ms_str *managed;
    ms_buf req;
} ext;

struct ms_extenders {
    uint32_t n;
    ext *x;                        /* call order */
    ms_http_caller http;
    ms_http_call *reqs;         /* n of each: the calls made at once */
    ms_http_result *answers;
    ms_interner *in;
    ms_map names;                  /* node name id -> input index + 1, per call */
    uint32_t nprio;
    uint32_t *prio;                /* extender index of each prioritizer */
};

/* ---- request bodies ---- */

/* A JSON string as Go's encoder writes it: <, > and & escaped too, and
 * U+2028 / U+2029. */
static void json_string(ms_buf *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    ms_buf_reserve(b, n + 2);
    ms_buf_append(b, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = NULL;
        char u[7];
        if (c == '"') esc = "\\\"";
        else if (c == '\\') esc = "\\\\";
        else if (c == '\n') esc = "\\n";
        else if (c == '\r') esc = "\\r";
        else if (c == '\t') esc = "\\t";
        else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            u[0] = '\\', u[1] = 'u', u[2] = '0', u[3] = '0', u[4] = hex[c >> 4], u[5] = hex[c & 15], u[6] = 0;
            esc = u;
        } else if (c == 0xe2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
                   ((unsigned char)s[i + 2] == 0xa8 || (unsigned char)s[i + 2] == 0xa9)) {
            esc = (unsigned char)s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
            ms_buf_append(b, s + i - run, run);
            run = 0;
            ms_buf_puts(b, esc);
            i += 2;
            continue;
        }
        if (!esc) {
            run++;
            continue;
        }
        ms_buf_append(b, s + i - run, run);
        run = 0;
        ms_buf_puts(b, esc);
    }
    ms_buf_append(b, s + n - run, run);
    ms_buf_append(b, "\"", 1);
}

static void json_cstr(ms_buf *b, const char *s) { json_string(b, s, strlen(s)); }

static void json_id(ms_buf *b, const ms_interner *in, ms_str id) {
    json_string(b, ms_str_get(in, id), ms_str_len(in, id));
}

static void json_labels(ms_buf *b, const ms_interner *in, const ms_labels *l) {
    ms_buf_putc(b, '{');
    for (uint32_t i = 0; i < l->n; i++) {
        if (i) ms_buf_putc(b, ',');
        json_id(b, in, l->items[i].key);
        ms_buf_putc(b, ':');
        json_id(b, in, l->items[i].value);
    }
    ms_buf_putc(b, '}');
}

/* The Pod as it was decoded, or (decoded without keep_raw) the identity
 * fields an extender needs to look it up. */
static void json_pod(ms_buf *b, const ms_interner *in, const ms_pod *p) {
    if (p->raw) {
        ms_buf_append(b, p->raw, p->raw_len);
        return;
    }
    ms_buf_puts(b, "{\"metadata\":{\"name\":");
    json_id(b, in, p->meta.name);
    ms_buf_puts(b, ",\"namespace\":");
    json_id(b, in, p->meta.namespace_);
    if (p->meta.uid && *p->meta.uid) {
        ms_buf_puts(b, ",\"uid\":");
        json_cstr(b, p->meta.uid);
    }
    if (p->meta.labels.n) {
        ms_buf_puts(b, ",\"labels\":");
        json_labels(b, in, &p->meta.labels);
    }
    ms_buf_puts(b, "},\"spec\":{\"schedulerName\":");
    json_id(b, in, p->scheduler_name);
    if (p->node_name != MS_STR_NONE) {
        ms_buf_puts(b, ",\"nodeName\":");
        json_id(b, in, p->node_name);
    }
    ms_buf_puts(b, "}}");
}

static void json_node(ms_buf *b, const ms_interner *in, const ms_node_info *ni) {
    const ms_node *n = ni->node;
    if (n && n->raw) {
        ms_buf_append(b, n->raw, n->raw_len);
        return;
    }
    ms_buf_puts(b, "{\"metadata\":{\"name\":");
    json_id(b, in, ni->name);
    if (n && n->meta.labels.n) {
        ms_buf_puts(b, ",\"labels\":");
        json_labels(b, in, &n->meta.labels);
    }
    ms_buf_puts(b, "}}");
}

/* ExtenderArgs {Pod, Nodes, NodeNames}: a NodeList of the Node objects, or
 * (nodeCacheCapable) the names only; the other one is null, as Go writes a
 * nil pointer. */
static void json_extender_args(ms_buf *b, const ms_interner *in, const ms_extender_config *c,
                             const ms_pod *pod, ms_node_info *const *nodes, uint32_t n) {
    ms_buf_puts(b, "{\"Pod\":");
    json_pod(b, in, pod);
    if (c->node_cache_capable) {
        ms_buf_puts(b, ",\"Nodes\":null,\"NodeNames\":[");
        for (uint32_t i = 0; i < n; i++) {
            if (i) ms_buf_putc(b, ',');
            json_id(b, in, nodes[i]->name);
        }
        ms_buf_puts(b, "]}");
    } else {
        ms_buf_puts(b, ",\"Nodes\":{\"metadata\":{},\"items\":[");
        for (uint32_t i = 0; i < n; i++) {
            if (i) ms_buf_putc(b, ',');
            json_node(b, in, nodes[i]);
        }
        ms_buf_puts(b, "]},\"NodeNames\":null}");
    }
}

/* ---- answers, read like Go's encoding/json ---- */

/* Does key equal name (ASCII) under simple case folding? */
static bool fold_equal(const char *key, const char *name) {
    const unsigned char *k = (const unsigned char *)key;
    for (const char *p = name; *p; p++) {
        char lc = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
        if (*k < 0x80) {
            char kc = (char)(*k >= 'A' && *k <= 'Z' ? *k + 32 : *k);
            if (kc != lc) return false;
            k++;
        } else if (lc == 'k' && k[0] == 0xe2 && k[1] == 0x84 && k[2] == 0xaa) {
            k += 3;   /* KELVIN SIGN folds to k */
        } else if (lc == 's' && k[0] == 0xc5 && k[1] == 0xbf) {
            k += 2;   /* LATIN SMALL LETTER LONG S folds to s */
        } else {
            return false;
        }
    }
    return *k == '\0';
}

const cJSON *ms_extender_json_field(const cJSON *obj, const char *name) {
    const cJSON *found = NULL;
    if (!cJSON_IsObject(obj)) return NULL;
    for (const cJSON *c = obj->child; c; c = c->next)
        if (c->string && fold_equal(c->string, name)) found = c;
    return found;
}

/* The field unless absent or null (both leave a Go value as it was). */
static const cJSON *field(const cJSON *obj, const char *name) {
    const cJSON *f = ms_extender_json_field(obj, name);
    return cJSON_IsNull(f) ? NULL : f;
}

static const char *json_kind(const cJSON *j) {
    if (cJSON_IsString(j)) return "string";
    if (cJSON_IsNumber(j)) return "number";
    if (cJSON_IsBool(j)) return "bool";
    if (cJSON_IsArray(j)) return "array";
    if (cJSON_IsObject(j)) return "object";
    return "value";
}

static ms_rc type_error(ms_error *err, const cJSON *j, const char *where, const char *go_type) {
    return ms_error_set(err, MS_EIO, "json: cannot unmarshal %s into Go %s of type %s", json_kind(j), where,
                        go_type);
}

/* The answer's first JSON value (Go's Decoder.Decode reads one value and
 * ignores what follows). */
static ms_rc parse_answer(const ms_http_result *ans, cJSON **out, ms_error *err) {
    const ms_buf *b = &ans->body;
    const char *end = NULL;
    size_t i = 0;
    while (i < b->len && strchr(" \t\r\n", b->data[i])) i++;
    if (i == b->len) return ms_error_set(err, MS_EIO, "EOF");
    cJSON *j = cJSON_ParseWithLengthOpts(b->data, b->len, &end, false);
    if (!j) {
        size_t at = end && end >= b->data ? (size_t)(end - b->data) : 0;
        if (at >= b->len) return ms_error_set(err, MS_EIO, "unexpected EOF");
        return ms_error_set(err, MS_EIO, "invalid character '%c' at offset %zu of the extender's answer",
                            b->data[at], at);
    }
    *out = j;
    return MS_OK;
}

/* ---- transport ---- */

/* Sends the prepared request of each extender to its `verb` URL, all at
 * once, and waits for every answer: the k-th answer is e->answers[k]. */
static void perform(ms_extenders *e, ext *const *xs, const int *verbs, uint32_t k) {
    for (uint32_t i = 0; i < k; i++) {
        const ext *x = xs[i];
        e->reqs[i] = (ms_http_call){
            .url = x->url[verbs[i]],
            .body = x->req.data,
            .body_len = x->req.len,
            .timeout = ms_extender_timeout(&x->c),
            .tls = &x->tls,
            .failed = x->req.failed,
        };
    }
    e->http.call_many(e->http.ctx, e->reqs, e->answers, k);
}

/* Upstream's send(): a transport failure reads like Go's client error
 * (`Post "URL": ...`); an answer other than 200 is refused. */
static ms_rc check_sent(const ext *x, const ms_http_result *ans, int verb, ms_error *err) {
    const char *url = x->url[verb];
    if (ans->error[0]) return ms_error_set(err, MS_EIO, "Post \"%s\": %s", url, ans->error);
    if (ans->status != 200)
        return ms_error_set(err, MS_EIO, "failed %s with extender at URL %s, code %ld", verb_names[verb], url,
                            ans->status);
    return MS_OK;
}

static ms_rc call(ms_extenders *e, ext *x, int verb, cJSON **answer, ms_error *err) {
    ext *one[1] = {x};
    int verbs[1] = {verb};
    perform(e, one, verbs, 1);
    ms_rc rc = check_sent(x, &e->answers[0], verb, err);
    if (rc == MS_OK) rc = parse_answer(&e->answers[0], answer, err);
    return rc;
}

/* ---- construction ---- */

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static unsigned char *dup_bytes(const unsigned char *p, size_t n) {
    if (!p) return NULL;
    unsigned char *d = malloc(n ? n : 1);
    if (d) memcpy(d, p, n);
    return d;
}

static bool copy_config(ms_extender_config *d, const ms_extender_config *s) {
    *d = *s;
    d->url_prefix = dup_or_null(s->url_prefix ? s->url_prefix : "");
    d->filter_verb = dup_or_null(s->filter_verb ? s->filter_verb : "");
    d->preempt_verb = dup_or_null(s->preempt_verb ? s->preempt_verb : "");
    d->prioritize_verb = dup_or_null(s->prioritize_verb ? s->prioritize_verb : "");
    d->bind_verb = dup_or_null(s->bind_verb ? s->bind_verb : "");
    d->tls.server_name = dup_or_null(s->tls.server_name);
    d->tls.cert_file = dup_or_null(s->tls.cert_file);
    d->tls.key_file = dup_or_null(s->tls.key_file);
    d->tls.ca_file = dup_or_null(s->tls.ca_file);
    d->tls.cert_data = dup_bytes(s->tls.cert_data, s->tls.cert_data_len);
    d->tls.key_data = dup_bytes(s->tls.key_data, s->tls.key_data_len);
    d->tls.ca_data = dup_bytes(s->tls.ca_data, s->tls.ca_data_len);
    d->managed = NULL;
    d->nmanaged = 0;
    if (s->nmanaged) {
        d->managed = calloc(s->nmanaged, sizeof *d->managed);
        if (!d->managed) return false;
        for (uint32_t i = 0; i < s->nmanaged; i++) {
            d->managed[i].ignored_by_scheduler = s->managed[i].ignored_by_scheduler;
            if (!(d->managed[i].name = strdup(s->managed[i].name ? s->managed[i].name : ""))) return false;
            d->nmanaged++;
        }
    }
    return d->url_prefix && d->filter_verb && d->preempt_verb && d->prioritize_verb && d->bind_verb &&
           (!s->tls.server_name || d->tls.server_name) && (!s->tls.cert_file || d->tls.cert_file) &&
           (!s->tls.key_file || d->tls.key_file) && (!s->tls.ca_file || d->tls.ca_file) &&
           (!s->tls.cert_data || d->tls.cert_data) && (!s->tls.key_data || d->tls.key_data) &&
           (!s->tls.ca_data || d->tls.ca_data);
}

static void free_config(ms_extender_config *c) {
    free(c->url_prefix);
    free(c->filter_verb);
    free(c->preempt_verb);
    free(c->prioritize_verb);
    free(c->bind_verb);
    free(c->tls.server_name);
    free(c->tls.cert_file);
    free(c->tls.key_file);
    free(c->tls.ca_file);
    free(c->tls.cert_data);
    free(c->tls.key_data);
    free(c->tls.ca_data);
    for (uint32_t i = 0; i < c->nmanaged; i++) free(c->managed[i].name);
    free(c->managed);
}

/* strings.TrimRight(urlPrefix, "/") + "/" + verb */
static char *join_url(const char *prefix, const char *verb) {
    size_t n = strlen(prefix);
    while (n && prefix[n - 1] == '/') n--;
    size_t len = n + 1 + strlen(verb) + 1;
    char *u = malloc(len);
    if (u) snprintf(u, len, "%.*s/%s", (int)n, prefix, verb);
    return u;
}

static ms_rc readable(const char *path, uint32_t i, const char *what, ms_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) return ms_error_set(err, MS_EINVAL, "extenders[%u].tlsConfig.%s: cannot read %s", i, what, path);
    fclose(f);
    return MS_OK;
}

/* upstream makeTransport through client-go's TLSConfigFor: its checks, and
 * its settings as the HTTP caller takes them. */
static ms_rc setup_tls(ext *x, uint32_t i, ms_error *err) {
    const ms_extender_tls *t = &x->c.tls;
    bool has_ca = (t->ca_data && t->ca_data_len) || (t->ca_file && *t->ca_file);
    if (t->insecure && has_ca)
        return ms_error_set(err, MS_EINVAL,
                            "extenders[%u].tlsConfig: specifying a root certificates file with the insecure "
                            "flag is not allowed",
                            i);
    ms_http_tls *h = &x->tls;
    h->insecure = t->insecure || (x->c.enable_https && !has_ca);
    ms_rc rc;
    if (t->ca_data && t->ca_data_len) {
        h->ca_data = t->ca_data;
        h->ca_len = t->ca_data_len;
    } else if (t->ca_file && *t->ca_file) {
        if ((rc = readable(t->ca_file, i, "caFile", err)) != MS_OK) return rc;
        h->ca_file = t->ca_file;
    }
    /* client-go presents a client certificate only when it has both parts */
    bool has_cert = (t->cert_data && t->cert_data_len) || (t->cert_file && *t->cert_file);
    bool has_key = (t->key_data && t->key_data_len) || (t->key_file && *t->key_file);
    if (!has_cert || !has_key) return MS_OK;
    if (t->cert_data && t->cert_data_len) {
        h->cert_data = t->cert_data;
        h->cert_len = t->cert_data_len;
    } else {
        if ((rc = readable(t->cert_file, i, "certFile", err)) != MS_OK) return rc;
        h->cert_file = t->cert_file;
    }
    if (t->key_data && t->key_data_len) {
        h->key_data = t->key_data;
        h->key_len = t->key_data_len;
    } else {
        if ((rc = readable(t->key_file, i, "keyFile", err)) != MS_OK) return rc;
        h->key_file = t->key_file;
    }
    return MS_OK;
}

static ms_rc setup(ms_extenders *e, ext *x, uint32_t i, ms_error *err) {
    const char *verbs[NVERBS] = {x->c.filter_verb, x->c.prioritize_verb, x->c.bind_verb, x->c.preempt_verb};
    if (x->c.has_tls) x->tls.server_name = x->c.tls.server_name;
    for (int v = 0; v < NVERBS; v++) {
        if (!*verbs[v]) continue;
        if (!(x->url[v] = join_url(x->c.url_prefix, verbs[v]))) return ms_error_set(err, MS_ENOMEM, "out of memory");
        char why[400];
        ms_http_call r = {.url = x->url[v], .tls = &x->tls};
        if (!e->http.check(e->http.ctx, &r, why, sizeof why))
            return ms_error_set(err, MS_EINVAL, "extenders[%u].tlsConfig.serverName: %s", i, why);
    }
    if (x->c.nmanaged) {
        if (!(x->managed = calloc(x->c.nmanaged, sizeof *x->managed)))
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < x->c.nmanaged; k++)
            if (!(x->managed[x->nmanaged++] = ms_intern_cstr(e->in, x->c.managed[k].name)))
                return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    return setup_tls(x, i, err);
}

ms_rc ms_extenders_new(const ms_extender_config *cfg, uint32_t n, ms_interner *in, const ms_http_caller *http,
                       ms_extenders **out, ms_error *err) {
    *out = NULL;
    ms_rc rc = ms_extender_configs_validate(cfg, n, err);
    if (rc != MS_OK) return rc;
    if (n && (!http || !http->call_many || !http->check))
        return ms_error_set(err, MS_EINVAL, "extenders: no HTTP client to call them with");
    ms_extenders *e = calloc(1, sizeof *e);
    if (!e) return ms_error_set(err, MS_ENOMEM, "out of memory");
    e->in = in;
    if (http) e->http = *http;
    ms_map_init(&e->names);
    e->x = calloc(n ? n : 1, sizeof *e->x);
    e->prio = calloc(n ? n : 1, sizeof *e->prio);
    e->reqs = calloc(n ? n : 1, sizeof *e->reqs);
    e->answers = calloc(n ? n : 1, sizeof *e->answers);
    if (!e->x || !e->prio || !e->reqs || !e->answers) {
        ms_extenders_free(e);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    /* upstream puts the ignorable extenders after the others */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < n; i++) {
            if (cfg[i].ignorable != (pass == 1)) continue;
            ext *x = &e->x[e->n++];
            if (!copy_config(&x->c, &cfg[i])) {
                ms_extenders_free(e);
                return ms_error_set(err, MS_ENOMEM, "out of memory");
            }
            if ((rc = setup(e, x, i, err)) != MS_OK) {
                ms_extenders_free(e);
                return rc;
            }
            if (*x->c.prioritize_verb) e->prio[e->nprio++] = e->n - 1;
        }
    *out = e;
    return MS_OK;
}

void ms_extenders_free(ms_extenders *e) {
    if (!e) return;
    for (uint32_t i = 0; i < e->n; i++) {
        ext *x = &e->x[i];
        for (int v = 0; v < NVERBS; v++) free(x->url[v]);
        free(x->managed);
        ms_buf_free(&x->req);
        free_config(&x->c);
    }
    for (uint32_t i = 0; e->answers && i < e->n; i++) ms_buf_free(&e->answers[i].body);
    free(e->x);
    free(e->prio);
    free(e->reqs);
    free(e->answers);
    ms_map_free(&e->names);
    free(e);
}

uint32_t ms_extenders_count(const ms_extenders *e) { return e ? e->n : 0; }

const ms_extender_config *ms_extenders_config(const ms_extenders *e, uint32_t i) {
    return i < e->n ? &e->x[i].c : NULL;
}

uint32_t ms_extenders_nprioritizers(const ms_extenders *e) { return e ? e->nprio : 0; }

const char *ms_extenders_prioritizer_name(const ms_extenders *e, uint32_t k) {
    return k < e->nprio ? e->x[e->prio[k]].c.url_prefix : "";
}

static bool has_name(const ms_resources *r, ms_str name) {
    for (uint32_t i = 0; i < r->nscalar; i++)
        if (r->scalar[i].name == name) return true;
    return false;
}

bool ms_extenders_interested(const ms_extenders *e, uint32_t i, const ms_pod *pod) {
    const ext *x = &e->x[i];
    if (x->nmanaged == 0) return true;
    for (uint32_t k = 0; k < x->nmanaged; k++)
        if (has_name(&pod->requests, x->managed[k]) || has_name(&pod->limits, x->managed[k])) return true;
    return false;
}

/* ---- node names in answers ---- */

static bool index_names(ms_extenders *e, ms_node_info *const *nodes, uint32_t n) {
    ms_map_clear(&e->names);
    for (uint32_t i = 0; i < n; i++)
        if (!ms_map_has(&e->names, nodes[i]->name) &&
            ms_map_put(&e->names, nodes[i]->name, (void *)(uintptr_t)(i + 1)) != 0)
            return false;
    return true;
}

/* The input index of a node name, or -1. */
static int64_t lookup_name(ms_extenders *e, const char *name) {
    ms_str id = ms_intern_find(e->in, name, strlen(name));
    if (id == MS_STR_NONE) return -1;
    uintptr_t v = (uintptr_t)ms_map_get(&e->names, id);
    return v ? (int64_t)v - 1 : -1;
}

/* ---- filter ---- */

static ms_rc keep(ms_extenders *e, const ext *x, const char *name, ms_extender_filter_result *res,
                  uint8_t *seen, ms_error *err) {
    int64_t i = lookup_name(e, name);
    if (i < 0) {
        char q[MS_QUOTE_SIZE];
        return ms_error_set(err, MS_EIO,
                            "extender \"%s\" claims a filtered node %s which is not found in the input node list",
                            x->c.url_prefix, ms_quote(q, name));
    }
    /* a node named twice is kept once */
    if (!seen[i]) res->feasible[res->nfeasible++] = (uint32_t)i;
    seen[i] = 1;
    return MS_OK;
}

static ms_rc failed_nodes(ms_extenders *e, const cJSON *map, const char *go_field, ms_code code,
                          ms_arena *a, ms_extender_filter_result *res, ms_error *err) {
    if (!map) return MS_OK;
    char where[96];
    snprintf(where, sizeof where, "struct field ExtenderFilterResult.%s", go_field);
    if (!cJSON_IsObject(map)) return type_error(err, map, where, "v1.FailedNodesMap");
    for (const cJSON *c = map->child; c; c = c->next) {
        if (cJSON_IsNull(c)) continue;
        if (!cJSON_IsString(c)) return type_error(err, c, where, "string");
        int64_t i = lookup_name(e, c->string);
        if (i < 0) continue;
        ms_status *st = &res->statuses[i];
        /* FailedAndUnresolvableNodes wins over FailedNodes */
        if (code == MS_UNSCHEDULABLE && st->code == MS_UNSCHEDULABLE_AND_UNRESOLVABLE) continue;
        const char *reason = ms_arena_strdup(a, c->valuestring);
        if (!reason) return ms_error_set(err, MS_ENOMEM, "out of memory");
        ms_status_set(st, code, reason);
        st->plugin = -1;
    }
    return MS_OK;
}

static ms_rc read_filter_result(ms_extenders *e, const ext *x, const cJSON *r, ms_arena *a,
                                ms_extender_filter_result *res, uint32_t n, ms_error *err) {
    if (cJSON_IsNull(r)) return MS_OK;
    if (!cJSON_IsObject(r)) return type_error(err, r, "value", "v1.ExtenderFilterResult");
    const cJSON *error = field(r, "Error");
    if (error && !cJSON_IsString(error))
        return type_error(err, error, "struct field ExtenderFilterResult.Error", "string");
    if (error && *error->valuestring) return ms_error_set(err, MS_EIO, "%s", error->valuestring);
    const cJSON *names = field(r, "NodeNames"), *nodes = field(r, "Nodes");
    if (names && !cJSON_IsArray(names))
        return type_error(err, names, "struct field ExtenderFilterResult.NodeNames", "[]string");
    if (nodes && !cJSON_IsObject(nodes))
        return type_error(err, nodes, "struct field ExtenderFilterResult.Nodes", "v1.NodeList");
    uint8_t *seen = MS_ARENA_NEW(a, uint8_t, n ? n : 1);
    if (!seen) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_rc rc;
    if (x->c.node_cache_capable && names) {
        for (const cJSON *c = names->child; c; c = c->next) {
            if (!cJSON_IsString(c) && !cJSON_IsNull(c))
                return type_error(err, c, "struct field ExtenderFilterResult.NodeNames", "string");
            if ((rc = keep(e, x, c->valuestring ? c->valuestring : "", res, seen, err)) != MS_OK) return rc;
        }
    } else if (nodes) {
        const cJSON *items = field(nodes, "items");
        if (items && !cJSON_IsArray(items))
            return type_error(err, items, "struct field NodeList.items", "[]v1.Node");
        for (const cJSON *c = items ? items->child : NULL; c; c = c->next) {
            if (cJSON_IsNull(c)) continue;
            if (!cJSON_IsObject(c)) return type_error(err, c, "struct field NodeList.items", "v1.Node");
            const cJSON *md = field(c, "metadata"), *nm = md ? field(md, "name") : NULL;
            if (nm && !cJSON_IsString(nm))
                return type_error(err, nm, "struct field Node.metadata.name", "string");
            if ((rc = keep(e, x, nm ? nm->valuestring : "", res, seen, err)) != MS_OK) return rc;
        }
    }
    if ((rc = failed_nodes(e, field(r, "FailedAndUnresolvableNodes"), "FailedAndUnresolvableNodes",
                           MS_UNSCHEDULABLE_AND_UNRESOLVABLE, a, res, err)) != MS_OK)
        return rc;
    return failed_nodes(e, field(r, "FailedNodes"), "FailedNodes", MS_UNSCHEDULABLE, a, res, err);
}

/* Every node Success and none kept yet. */
static ms_rc prepare_filter_result(ms_arena *a, ms_extender_filter_result *res, uint32_t n, ms_error *err) {
    res->nfeasible = 0;
    res->feasible = MS_ARENA_NEW(a, uint32_t, n ? n : 1);
    res->statuses = MS_ARENA_NEW(a, ms_status, n ? n : 1);
    if (!res->feasible || !res->statuses) return ms_error_set(err, MS_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < n; k++) ms_status_ok(&res->statuses[k]);
    return MS_OK;
}

static ms_rc finish_filter(ms_extenders *e, const ext *x, const cJSON *answer, ms_node_info *const *nodes,
                           uint32_t n, ms_arena *a, ms_extender_filter_result *res, ms_error *err) {
    ms_rc rc = index_names(e, nodes, n) ? read_filter_result(e, x, answer, a, res, n, err)
                                        : ms_error_set(err, MS_ENOMEM, "out of memory");
    if (rc != MS_OK) res->nfeasible = 0;
    return rc;
}

ms_rc ms_extenders_read_filter(ms_extenders *e, uint32_t i, const cJSON *answer, ms_node_info *const *nodes,
                               uint32_t n, ms_arena *a, ms_extender_filter_result *res, ms_error *err) {
    ms_rc rc = prepare_filter_result(a, res, n, err);
    return rc == MS_OK ? finish_filter(e, &e->x[i], answer, nodes, n, a, res, err) : rc;
}

ms_rc ms_extenders_filter(ms_extenders *e, uint32_t i, const ms_pod *pod,
                          ms_node_info *const *nodes, uint32_t n, ms_arena *a,
                          ms_extender_filter_result *res, ms_error *err) {
    ext *x = &e->x[i];
    ms_rc rc = prepare_filter_result(a, res, n, err);
    if (rc != MS_OK) return rc;
    if (!*x->c.filter_verb) {
        for (uint32_t k = 0; k < n; k++) res->feasible[k] = k;
        res->nfeasible = n;
        return MS_OK;
    }
    ms_buf_reset(&x->req);
    json_extender_args(&x->req, e->in, &x->c, pod, nodes, n);
    cJSON *answer = NULL;
    rc = call(e, x, VERB_FILTER, &answer, err);
    if (rc == MS_OK) rc = finish_filter(e, x, answer, nodes, n, a, res, err);
    cJSON_Delete(answer);
    if (rc != MS_OK) res->nfeasible = 0;
    return rc;
}

/* ---- prioritize ---- */

static ms_rc read_priorities(ms_extenders *e, const ext *x, const cJSON *list, int64_t *row,
                             ms_error *err) {
    if (cJSON_IsNull(list)) return MS_OK;
    if (!cJSON_IsArray(list)) return type_error(err, list, "value", "v1.HostPriorityList");
    int64_t scale = ms_go_int64_mul(x->c.weight, MS_MAX_NODE_SCORE / MS_MAX_EXTENDER_PRIORITY);
    for (const cJSON *c = list->child; c; c = c->next) {
        if (cJSON_IsNull(c)) continue;
        if (!cJSON_IsObject(c)) return type_error(err, c, "value", "v1.HostPriority");
        const cJSON *host = field(c, "Host"), *score = field(c, "Score");
        if (host && !cJSON_IsString(host))
            return type_error(err, host, "struct field HostPriority.Host", "string");
        int64_t v = 0;
        if (score && !ms_json_integer(score, INT64_MIN, INT64_MAX, &v)) {
            if (!cJSON_IsNumber(score))
                return type_error(err, score, "struct field HostPriority.Score", "int64");
            return ms_error_set(err, MS_EIO,
                                "json: cannot unmarshal number %.17g into Go struct field HostPriority.Score "
                                "of type int64",
                                score->valuedouble);
        }
        int64_t i = lookup_name(e, host ? host->valuestring : "");
        if (i >= 0) row[i] = ms_go_int64_add(row[i], ms_go_int64_mul(v, scale));
    }
    return MS_OK;
}

ms_rc ms_extenders_read_priorities(ms_extenders *e, uint32_t i, const cJSON *answer, ms_node_info *const *nodes,
                                   uint32_t n, int64_t *row, ms_error *err) {
    memset(row, 0, n * sizeof *row);
    if (!index_names(e, nodes, n)) return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_rc rc = read_priorities(e, &e->x[i], answer, row, err);
    if (rc != MS_OK) memset(row, 0, n * sizeof *row);
    return rc;
}

void ms_extenders_prioritize(ms_extenders *e, const ms_pod *pod, ms_node_info *const *nodes,
                             uint32_t n, int64_t *scores, uint32_t *failed) {
    ext *xs[64];
    int verbs[64];
    uint32_t rows[64], k = 0, nfailed = 0;
    memset(scores, 0, (size_t)e->nprio * n * sizeof *scores);
    for (uint32_t p = 0; p < e->nprio; p++) {
        ext *x = &e->x[e->prio[p]];
        if (!ms_extenders_interested(e, e->prio[p], pod)) continue;
        if (k == sizeof xs / sizeof xs[0]) {
            nfailed++;
            continue;
        }
        ms_buf_reset(&x->req);
        json_extender_args(&x->req, e->in, &x->c, pod, nodes, n);
        xs[k] = x;
        verbs[k] = VERB_PRIORITIZE;
        rows[k++] = p;
    }
    if (k) perform(e, xs, verbs, k);
    bool indexed = k && index_names(e, nodes, n);
    for (uint32_t j = 0; j < k; j++) {
        ms_error err;
        cJSON *answer = NULL;
        int64_t *row = scores + (size_t)rows[j] * n;
        ms_rc rc = indexed ? check_sent(xs[j], &e->answers[j], VERB_PRIORITIZE, &err) : MS_ENOMEM;
        if (rc == MS_OK) rc = parse_answer(&e->answers[j], &answer, &err);
        if (rc == MS_OK) rc = read_priorities(e, xs[j], answer, row, &err);
        cJSON_Delete(answer);
        if (rc != MS_OK) {
            /* upstream: the extender then gives no score at all */
            memset(row, 0, n * sizeof *row);
            nfailed++;
        }
    }
    if (failed) *failed = nfailed;
}

/* ---- bind ---- */

ms_rc ms_extenders_read_binding(const cJSON *answer, ms_error *err) {
    if (cJSON_IsNull(answer)) return MS_OK;
    if (!cJSON_IsObject(answer)) return type_error(err, answer, "value", "v1.ExtenderBindingResult");
    const cJSON *error = field(answer, "Error");
    if (error && !cJSON_IsString(error))
        return type_error(err, error, "struct field ExtenderBindingResult.Error", "string");
    if (error && *error->valuestring) return ms_error_set(err, MS_EIO, "%s", error->valuestring);
    return MS_OK;
}

ms_rc ms_extenders_bind(ms_extenders *e, const ms_pod *pod, ms_str node, bool *bound,
                        ms_error *err) {
    *bound = false;
    for (uint32_t i = 0; i < e->n; i++) {
        ext *x = &e->x[i];
        if (!*x->c.bind_verb || !ms_extenders_interested(e, i, pod)) continue;
        ms_buf_reset(&x->req);
        ms_buf_puts(&x->req, "{\"PodName\":");
        json_id(&x->req, e->in, pod->meta.name);
        ms_buf_puts(&x->req, ",\"PodNamespace\":");
        json_id(&x->req, e->in, pod->meta.namespace_);
        ms_buf_puts(&x->req, ",\"PodUID\":");
        json_cstr(&x->req, pod->meta.uid ? pod->meta.uid : "");
        ms_buf_puts(&x->req, ",\"Node\":");
        json_id(&x->req, e->in, node);
        ms_buf_puts(&x->req, "}");
        cJSON *answer = NULL;
        ms_rc rc = call(e, x, VERB_BIND, &answer, err);
        if (rc == MS_OK) rc = ms_extenders_read_binding(answer, err);
        cJSON_Delete(answer);
        if (rc != MS_OK && x->c.ignorable) continue;
        *bound = true;
        return rc;
    }
    return MS_OK;
}

/* ---- preempt ---- */

static int cmp_cand_name(const void *a, const void *b, void *in) {
    const ms_preemption_candidate *x = *(ms_preemption_candidate *const *)a;
    const ms_preemption_candidate *y = *(ms_preemption_candidate *const *)b;
    return strcmp(ms_str_get(in, x->node), ms_str_get(in, y->node));
}

/* ExtenderPreemptionArgs: victims per node (keys sorted, as Go writes a
 * map), full Pods or (nodeCacheCapable) MetaPods. */
static bool preemption_args(ms_extenders *e, ext *x, const ms_pod *pod,
                            const ms_preemption_candidate *cands, uint32_t n) {
    const ms_preemption_candidate **order = malloc((n ? n : 1) * sizeof *order);
    if (!order) return false;
    for (uint32_t i = 0; i < n; i++) order[i] = &cands[i];
    qsort_r(order, n, sizeof *order, cmp_cand_name, e->in);
    ms_buf *b = &x->req;
    ms_buf_reset(b);
    ms_buf_puts(b, "{\"Pod\":");
    json_pod(b, e->in, pod);
    ms_buf_puts(b, x->c.node_cache_capable ? ",\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":{"
                                       : ",\"NodeNameToVictims\":{");
    for (uint32_t i = 0; i < n; i++) {
        const ms_preemption_candidate *c = order[i];
        if (i) ms_buf_putc(b, ',');
        json_id(b, e->in, c->node);
        ms_buf_puts(b, ":{\"Pods\":[");
        for (uint32_t k = 0; k < c->nvictims; k++) {
            if (k) ms_buf_putc(b, ',');
            if (x->c.node_cache_capable) {
                ms_buf_puts(b, "{\"UID\":");
                json_cstr(b, c->victims[k]->meta.uid ? c->victims[k]->meta.uid : "");
                ms_buf_putc(b, '}');
            } else {
                json_pod(b, e->in, c->victims[k]);
            }
        }
        ms_buf_printf(b, "],\"NumPDBViolations\":%u}", c->num_pdb_violations);
    }
    ms_buf_puts(b, x->c.node_cache_capable ? "}}" : "},\"NodeNameToMetaVictims\":null}");
    free(order);
    return !b->failed;
}

/* convertToVictims: NodeNameToMetaVictims back to pods of the snapshot. */
static ms_rc read_victims(ms_extenders *e, const ext *x, const cJSON *r, const ms_snapshot *snap,
                          ms_arena *a, ms_preemption_candidate **out, uint32_t *nout, ms_error *err) {
    *out = NULL;
    *nout = 0;
    if (cJSON_IsNull(r)) return MS_OK;
    if (!cJSON_IsObject(r)) return type_error(err, r, "value", "v1.ExtenderPreemptionResult");
    const cJSON *m = field(r, "NodeNameToMetaVictims");
    if (!m) return MS_OK;
    const char *where = "struct field ExtenderPreemptionResult.NodeNameToMetaVictims";
    if (!cJSON_IsObject(m)) return type_error(err, m, where, "map[string]*v1.MetaVictims");
    uint32_t count = (uint32_t)cJSON_GetArraySize(m);
    ms_preemption_candidate *cands = MS_ARENA_NEW(a, ms_preemption_candidate, count ? count : 1);
    if (!cands) return ms_error_set(err, MS_ENOMEM, "out of memory");
    uint32_t k = 0;
    for (const cJSON *c = m->child; c; c = c->next) {
        ms_str id = ms_intern_find(e->in, c->string, strlen(c->string));
        ms_node_info *ni = id != MS_STR_NONE ? ms_snapshot_get(snap, id) : NULL;
        if (!ni || !ni->node)
            return ms_error_set(err, MS_EIO, "nodeinfo not found for node name \"%.200s\"", c->string);
        ms_preemption_candidate *cand = &cands[k++];
        memset(cand, 0, sizeof *cand);
        cand->node = id;
        cand->ni = ni;
        if (cJSON_IsNull(c)) continue;
        if (!cJSON_IsObject(c)) return type_error(err, c, where, "v1.MetaVictims");
        const cJSON *pods = field(c, "Pods"), *pdb = field(c, "NumPDBViolations");
        int64_t v = 0;
        if (pdb && !ms_json_integer(pdb, INT64_MIN, INT64_MAX, &v))
            return type_error(err, pdb, "struct field MetaVictims.NumPDBViolations", "int64");
        cand->num_pdb_violations = v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
        if (pods && !cJSON_IsArray(pods)) return type_error(err, pods, "struct field MetaVictims.Pods", "[]*v1.MetaPod");
        uint32_t np = pods ? (uint32_t)cJSON_GetArraySize(pods) : 0;
        cand->victims = MS_ARENA_NEW(a, ms_pod *, np ? np : 1);
        if (!cand->victims) return ms_error_set(err, MS_ENOMEM, "out of memory");
        for (const cJSON *p = pods ? pods->child : NULL; p; p = p->next) {
            if (cJSON_IsNull(p)) continue;
            if (!cJSON_IsObject(p)) return type_error(err, p, "struct field MetaVictims.Pods", "v1.MetaPod");
            const cJSON *uid = field(p, "UID");
            if (uid && !cJSON_IsString(uid)) return type_error(err, uid, "struct field MetaPod.UID", "string");
            const char *u = uid ? uid->valuestring : "";
            ms_pod *found = NULL;
            for (uint32_t q = 0; q < ni->npods && !found; q++)
                if (ni->pods[q]->meta.uid && strcmp(ni->pods[q]->meta.uid, u) == 0) found = ni->pods[q];
            if (!found)
                return ms_error_set(err, MS_EIO,
                                    "extender: %s claims to preempt pod (UID: %.100s) on node: %.200s, but the "
                                    "pod is not found on that node",
                                    x->c.url_prefix, u, c->string);
            cand->victims[cand->nvictims++] = found;
        }
    }
    *out = cands;
    *nout = k;
    return MS_OK;
}

ms_rc ms_extenders_read_victims(ms_extenders *e, uint32_t i, const cJSON *answer, const ms_snapshot *snap,
                                ms_arena *a, ms_preemption_candidate **out, uint32_t *nout, ms_error *err) {
    return read_victims(e, &e->x[i], answer, snap, a, out, nout, err);
}

ms_rc ms_extenders_preempt(ms_extenders *e, const ms_pod *pod, const ms_snapshot *snap,
                           ms_preemption_candidate **cands, uint32_t *ncands, ms_arena *a,
                           ms_error *err) {
    if (*ncands == 0) return MS_OK;
    for (uint32_t i = 0; i < e->n; i++) {
        ext *x = &e->x[i];
        if (!*x->c.preempt_verb || !ms_extenders_interested(e, i, pod)) continue;
        if (!preemption_args(e, x, pod, *cands, *ncands)) return ms_error_set(err, MS_ENOMEM, "out of memory");
        cJSON *answer = NULL;
        ms_preemption_candidate *got = NULL;
        uint32_t ngot = 0;
        ms_rc rc = call(e, x, VERB_PREEMPT, &answer, err);
        if (rc == MS_OK) rc = read_victims(e, x, answer, snap, a, &got, &ngot, err);
        cJSON_Delete(answer);
        if (rc != MS_OK) {
            if (x->c.ignorable) continue;
            return rc;
        }
        /* every node left must keep victims */
        uint32_t kept = 0;
        for (uint32_t k = 0; k < ngot; k++) {
            if (got[k].nvictims == 0) {
                if (x->c.ignorable) continue;
                char q[MS_QUOTE_SIZE];
                return ms_error_set(err, MS_EIO, "expected at least one victim pod on node %s",
                                    ms_quote(q, ms_str_get(e->in, got[k].node)));
            }
            got[kept++] = got[k];
        }
        *cands = got;
        *ncands = kept;
        if (kept == 0) break;
    }
    return MS_OK;
}
