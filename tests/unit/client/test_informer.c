#include "testutil.h"

#include "fake_http.h"
#include "log_capture.h"
#include "moonsched/decode.h"
#include "client/informer.h"
#include "client/informer_internal.h"
#include "api/dra.h"
#include "moonsched/namespaces.h"
#include "moonsched/pdb.h"

#define NODE(name, rv) "{\"metadata\":{\"name\":\"" name "\",\"resourceVersion\":\"" rv "\"},\"status\":{\"allocatable\":{\"cpu\":\"4\"}}}"
#define EVENT(type, obj) "{\"type\":\"" type "\",\"object\":" obj "}\n"

typedef struct script {
    atomic_int lists, watches;
    char watch_paths[8][4096];
    bool always_fail;      /* every LIST answers 403 */
    bool empty_watches;    /* every WATCH ends at once without events */
    bool always_gone;      /* every WATCH answers 410 */
    double watch_at[8];    /* when each WATCH came (fh_now) */
} script;

static bool has(const char *path, const char *part) { return strstr(path, part) != NULL; }

static bool node_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    script *s = ctx;
    const char *p = r->path;
    if (!has(p, "watch=1")) {
        if (s->always_fail) {
            atomic_fetch_add(&s->lists, 1);
            return fh_reply(fd, 403, NULL,
                            "{\"kind\":\"Status\",\"message\":\"nodes is forbidden: User \\\"u\\\" cannot list "
                            "resource \\\"nodes\\\"\",\"code\":403}");
        }
        if (has(p, "continue=tok%2B1%3D"))
            return fh_reply(fd, 200, NULL,
                            "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[" NODE("n3", "3") "]}");
        int n = atomic_fetch_add(&s->lists, 1);
        if (n == 0)
            return fh_reply(fd, 200, NULL,
                            "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"10\",\"continue\":\"tok+1=\"},"
                            "\"items\":[" NODE("n1", "1") "," NODE("n2", "2") "]}");
        const char *rv = n == 1 ? "25" : "26";
        char body[1024];
        snprintf(body, sizeof body,
                 "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"%s\"},\"items\":[" NODE("n1", "12") "," NODE(
                     "n3", "20") "," NODE("n5", "21") "]}",
                 rv);
        return fh_reply(fd, 200, NULL, body);
    }
    int w = atomic_fetch_add(&s->watches, 1);
    if (w < 8) snprintf(s->watch_paths[w], sizeof s->watch_paths[w], "%s", p);
    if (s->empty_watches) {
        fh_stream_begin(fd, 200);
        return fh_stream_end(fd);
    }
    if (s->always_gone) return fh_reply(fd, 410, NULL, "{\"kind\":\"Status\",\"reason\":\"Expired\",\"code\":410}");
    switch (w) {
    case 0:
        fh_stream_begin(fd, 200);
        /* events split across chunks, and two in one chunk */
        fh_stream_str(fd, "{\"type\":\"ADDED\",\"object\":" NODE("n4", "11") "}\n{\"type\":\"MOD", 0.02);
        fh_stream_str(fd, "IFIED\",\"object\":" NODE("n1", "12") "}\n" EVENT("DELETED", NODE("n2", "13")), 0.02);
        fh_stream_str(fd, EVENT("BOOKMARK", "{\"kind\":\"Node\",\"metadata\":{\"resourceVersion\":\"15\"}}"), 0.02);
        fh_stream_str(fd,
                      EVENT("ADDED", "{\"metadata\":{\"name\":\"bad\",\"resourceVersion\":\"16\"},\"status\":{"
                                     "\"allocatable\":{\"cpu\":\"4x\"}}}"),
                      0.02);
        fh_stream_str(fd,
                      EVENT("ERROR", "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"too old resource "
                                     "version: 10 (14)\",\"reason\":\"Expired\",\"code\":410}"),
                      0);
        fh_stream_hold(srv, fd);   /* the client must leave on its own */
        return false;
    case 1:
        return fh_reply(fd, 410, NULL, "{\"kind\":\"Status\",\"reason\":\"Expired\",\"code\":410}");
    case 2:
        fh_stream_begin(fd, 200);
        fh_stream_str(fd, EVENT("ADDED", NODE("n6", "27")), 0);
        return fh_stream_end(fd);   /* the server ends the watch (timeoutSeconds) */
    default:
        fh_stream_begin(fd, 200);
        fh_stream_hold(srv, fd);
        return false;
    }
}

typedef struct env {
    script s;
    log_capture lg;
    ms_logger logger;
    fake_http *srv;
    ms_kubeconfig kc;
    ms_kube_client *client;
    ms_interner *in;
    ms_decoder dec;
    ms_delta_queue *q;
} env;

typedef bool (*handler_fn)(fake_http *, int, const fh_request *, void *);

/* A fake apiserver answering with `handler` (ctx NULL: the env's script). */
static env *env_serve(handler_fn handler, void *ctx) {
    env *e = calloc(1, sizeof *e);
    log_capture_init(&e->lg);
    e->logger = log_capture_logger(&e->lg, MS_LOG_INFO);
    e->srv = fh_start(handler, ctx ? ctx : &e->s);
    e->kc.server = strdup(e->srv->url);
    ms_kube_client_options co = {.config = &e->kc, .log = &e->logger};
    ms_error err = {0};
    assert_int_equal(ms_kube_client_new(&co, &e->client, &err), MS_OK);
    e->in = ms_interner_new();
    ms_decoder_init(&e->dec, e->in);
    e->q = ms_delta_queue_new();
    return e;
}

static env *env_new(void) { return env_serve(node_handler, NULL); }

static void env_free(env *e) {
    ms_delta d[64];
    size_t n;
    while ((n = ms_delta_queue_pop(e->q, d, 64, 0)))
        for (size_t i = 0; i < n; i++) ms_delta_release(&d[i]);
    ms_delta_queue_free(e->q);
    ms_kube_client_free(e->client);
    fh_stop(e->srv);
    ms_kubeconfig_free(&e->kc);
    ms_interner_free(e->in);
    log_capture_free(&e->lg);
    free(e);
}

typedef struct seen {
    char what[32][48];
    int n;
} seen;

static void hook(void *ctx, char *rv, size_t n) {
    seen *s = ctx;
    if (s->n < 32) snprintf(s->what[s->n++], sizeof s->what[0], "%.*s", (int)n, rv);
}

/* "add n1", "delete n4 (unknown)", "synced" ... until `until` or a timeout. */
static int collect(env *e, seen *out, const char *until) {
    double deadline = fh_now() + 10;
    while (fh_now() < deadline) {
        ms_delta d[16];
        size_t n = ms_delta_queue_pop(e->q, d, 16, 0.2);
        for (size_t i = 0; i < n; i++) {
            char *w = out->what[out->n < 32 ? out->n++ : 31];
            if (d[i].type == MS_DELTA_SYNCED) {
                snprintf(w, 48, "synced");
                assert_null(d[i].obj);
            } else {
                assert_int_equal(d[i].kind, MS_KIND_NODE);
                snprintf(w, 48, "%s %s%s", ms_delta_type_name(d[i].type), ms_str_get(e->in, d[i].node->meta.name),
                         d[i].final_state_unknown ? " (unknown)" : "");
            }
            ms_delta_release(&d[i]);
            if (!strcmp(w, until)) return out->n;
        }
    }
    return -1;
}

static void test_list_watch_relist(void **state) {
    (void)state;
    env *e = env_new();
    seen hooks = {0};
    ms_informer_options o = {
        .client = e->client,
        .resource = &ms_informer_nodes,
        .decode_ctx = &e->dec,
        .queue = e->q,
        .log = &e->logger,
        .page_size = 2,
        .watch_timeout = 60,
        .before_watch = hook,
        .before_watch_ctx = &hooks,
        .seed = 42,
    };
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    seen got = {0};
    assert_true(collect(e, &got, "add n6") > 0);
    static const char *const want[] = {
        "add n1", "add n2", "add n3", "synced",                  /* LIST in two pages */
        "add n4", "update n1", "delete n2",                     /* the watch */
        "update n3", "add n5", "delete n4 (unknown)",           /* relist after the 410 ERROR event */
        "add n6",                                               /* (nothing from the relist after HTTP 410) */
    };
    assert_int_equal(got.n, sizeof want / sizeof want[0]);
    for (int i = 0; i < got.n; i++) assert_string_equal(got.what[i], want[i]);
    assert_true(ms_informer_has_synced(inf));

    /* wait for the fourth watch to be under way before reading counters */
    for (int i = 0; i < 100 && atomic_load(&e->s.watches) < 4; i++) fh_sleep(0.02);
    ms_informer_stats st;
    ms_informer_stats_get(inf, &st);
    assert_int_equal(st.lists, 3);
    assert_int_equal(st.pages, 4);
    assert_int_equal(st.relists_gone, 2);
    assert_int_equal(st.decode_errors, 1);
    assert_int_equal(st.bookmarks, 1);
    assert_int_equal(st.objects, 4);   /* n1 n3 n5 n6 */
    assert_string_equal(st.resource_version, "27");
    ms_informer_stop(inf);

    /* where each watch resumed: the list, the list after each relist, the last event */
    assert_int_equal(hooks.n, 4);
    assert_string_equal(hooks.what[0], "10");
    assert_string_equal(hooks.what[1], "25");
    assert_string_equal(hooks.what[2], "26");
    assert_string_equal(hooks.what[3], "27");
    const char *w0 = e->s.watch_paths[0];
    assert_true(has(w0, "/api/v1/nodes?watch=1&allowWatchBookmarks=true&timeoutSeconds="));
    assert_true(has(w0, "&resourceVersion=10"));
    int secs = atoi(strstr(w0, "timeoutSeconds=") + 15);
    assert_true(secs >= 60 && secs < 120);
    assert_true(has(e->srv->reqs[0].path, "/api/v1/nodes?limit=2"));
    assert_false(has(e->srv->reqs[0].path, "fieldSelector"));
    /* The first list may come from the watch cache (client-go's initial
     * list); a continue token carries its own version; the relists after
     * 410 read the latest, from etcd. */
    int lists_seen = 0;
    for (int i = 0; i < fh_nreqs(e->srv); i++) {
        const char *p = e->srv->reqs[i].path;
        if (has(p, "watch=1")) continue;
        if (lists_seen++ == 0)
            assert_true(has(p, "limit=2&resourceVersion=0"));
        else
            assert_false(has(p, "resourceVersion="));
    }
    assert_int_equal(lists_seen, 4);

    /* the undecodable object is named in one log line, and the stream went on */
    assert_non_null(strstr(e->lg.text, "msg=\"object skipped: it does not decode\" kind=Node object=bad resourceVersion=16"));
    assert_non_null(strstr(e->lg.text, "error=\"Node bad: status.allocatable.cpu: "));
    assert_non_null(strstr(e->lg.text, "msg=\"resourceVersion too old; relisting\""));
    env_free(e);
}

/* A list answer that arrives in pieces, its items in no key order, the
 * List's metadata after them, items without apiVersion: each item is
 * decoded as it comes, the resourceVersion read from the envelope at the
 * end, and the objects handed on in key order, as etcd lists them. */
static bool trickled_list_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    (void)ctx;
    if (has(r->path, "watch=1")) {
        fh_stream_begin(fd, 200);
        fh_stream_hold(srv, fd);
        return false;
    }
    fh_stream_begin(fd, 200);
    /* in no key order, as the watch cache answers */
    fh_stream_str(fd, "{\"kind\":\"NodeList\",\"apiVersion\":\"v1\",\"items\":[" NODE("n3", "3") "," "{\"meta", 0.01);
    fh_stream_str(fd, "data\":{\"name\":\"n2\",\"resourceVersion\":\"2\",\"annotations\":{\"a\":\"]},{\"}}," "\"sta", 0.01);
    fh_stream_str(fd, "tus\":{\"allocatable\":{\"cpu\":\"4\"}}}," NODE("n1", "1") "],\"metadata\":{\"resourceVersion\":\"40\"}}", 0);
    return fh_stream_end(fd);
}

static void test_list_items_as_they_arrive(void **state) {
    (void)state;
    static int unused;
    env *e = env_serve(trickled_list_handler, &unused);
    ms_informer_options o = {.client = e->client, .resource = &ms_informer_nodes, .decode_ctx = &e->dec,
                             .queue = e->q, .log = &e->logger};
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    seen got = {0};
    assert_true(collect(e, &got, "synced") > 0);
    static const char *const want[] = {"add n1", "add n2", "add n3", "synced"};
    assert_int_equal(got.n, sizeof want / sizeof want[0]);
    for (int i = 0; i < got.n; i++) assert_string_equal(got.what[i], want[i]);
    for (int i = 0; i < 100 && fh_nreqs(e->srv) < 2; i++) fh_sleep(0.02);
    ms_informer_stop(inf);
    assert_true(has(e->srv->reqs[1].path, "watch=1"));
    assert_true(has(e->srv->reqs[1].path, "&resourceVersion=40"));
    env_free(e);
}

/* The continue token of the second page has expired (410): one LIST
 * without pages follows, as client-go's pager does, and replaces what the
 * first page brought. */
static bool expired_continue_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    atomic_int *lists = ctx;
    const char *p = r->path;
    if (has(p, "watch=1")) {
        fh_stream_begin(fd, 200);
        fh_stream_hold(srv, fd);
        return false;
    }
    atomic_fetch_add(lists, 1);
    if (has(p, "continue="))
        return fh_reply(fd, 410, NULL,
                        "{\"kind\":\"Status\",\"message\":\"The provided continue parameter is too old\","
                        "\"reason\":\"Expired\",\"code\":410}");
    if (has(p, "limit="))
        return fh_reply(fd, 200, NULL,
                        "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"10\",\"continue\":\"tok\"},"
                        "\"items\":[" NODE("n1", "1") "," NODE("n2", "2") "]}");
    return fh_reply(fd, 200, NULL,
                    "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"30\"},\"items\":[" NODE("n2", "22") "," NODE(
                        "n3", "23") "]}");
}

static void test_expired_continue_lists_without_pages(void **state) {
    (void)state;
    atomic_int lists = 0;
    env *e = env_serve(expired_continue_handler, &lists);
    ms_informer_options o = {.client = e->client, .resource = &ms_informer_nodes, .decode_ctx = &e->dec,
                             .queue = e->q, .log = &e->logger, .page_size = 2};
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    seen got = {0};
    assert_true(collect(e, &got, "synced") > 0);
    static const char *const want[] = {"add n1", "add n2", "update n2", "add n3", "delete n1 (unknown)", "synced"};
    assert_int_equal(got.n, sizeof want / sizeof want[0]);
    for (int i = 0; i < got.n; i++) assert_string_equal(got.what[i], want[i]);
    ms_informer_stop(inf);
    assert_int_equal(atomic_load(&lists), 3);   /* a page, the expired one, the whole list */
    assert_true(has(e->srv->reqs[0].path, "/api/v1/nodes?limit=2"));
    assert_true(has(e->srv->reqs[1].path, "limit=2&continue=tok"));
    assert_string_equal(e->srv->reqs[2].path, "/api/v1/nodes?");
    assert_non_null(strstr(e->lg.text, "msg=\"list continue token expired; listing again without pages\""));
    env_free(e);
}

/* A server that pages even the list without limit and expires it too (a
 * proxy forcing limit=2): one list without pages per attempt, then the
 * attempt fails and backs off, never a tight loop. */
static bool always_expired_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    atomic_int *lists = ctx;
    if (has(r->path, "watch=1")) {
        fh_stream_begin(fd, 200);
        fh_stream_hold(srv, fd);
        return false;
    }
    atomic_fetch_add(lists, 1);
    if (has(r->path, "continue="))
        return fh_reply(fd, 410, NULL, "{\"kind\":\"Status\",\"reason\":\"Expired\",\"code\":410}");
    return fh_reply(fd, 200, NULL,
                    "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"10\",\"continue\":\"tok\"},"
                    "\"items\":[" NODE("n1", "1") "]}");
}

static void test_expired_again_backs_off(void **state) {
    (void)state;
    atomic_int lists = 0;
    env *e = env_serve(always_expired_handler, &lists);
    ms_informer_options o = {.client = e->client, .resource = &ms_informer_nodes, .decode_ctx = &e->dec,
                             .queue = e->q, .log = &e->logger, .page_size = 2, .backoff_initial = 1,
                             .backoff_max = 1};
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    double deadline = fh_now() + 10;
    while (atomic_load(&lists) < 4 && fh_now() < deadline) fh_sleep(0.01);
    fh_sleep(0.5);
    ms_informer_stop(inf);
    /* an attempt: a page, its expired continue, the list without pages,
     * its expired continue; then a second's backoff (a loop would have
     * sent hundreds) */
    assert_true(atomic_load(&lists) >= 4 && atomic_load(&lists) <= 8);
    pthread_mutex_lock(&e->lg.mu);
    assert_non_null(strstr(e->lg.text, "msg=\"list failed\" resource=/api/v1/nodes status=410"));
    pthread_mutex_unlock(&e->lg.mu);
    env_free(e);
}

static void test_failures_back_off_and_stop_quickly(void **state) {
    (void)state;
    env *e = env_new();
    e->s.always_fail = true;
    ms_informer_options o = {
        .client = e->client, .resource = &ms_informer_nodes, .decode_ctx = &e->dec, .queue = e->q,
        .log = &e->logger, .backoff_initial = 0.05, .backoff_max = 0.2,
    };
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    fh_sleep(0.6);
    ms_informer_stats st;
    ms_informer_stats_get(inf, &st);
    /* 0.05, 0.1, 0.2, 0.2 ... (+ up to 25%): a handful of attempts, not hundreds */
    assert_true(st.failures >= 3 && st.failures <= 6);
    assert_false(ms_informer_has_synced(inf));
    double t0 = fh_now();
    ms_informer_stop(inf);
    assert_true(fh_now() - t0 < 0.5);
    assert_non_null(strstr(e->lg.text, "msg=\"list failed\" resource=/api/v1/nodes status=403 "
                                       "error=\"nodes is forbidden: User \\\"u\\\" cannot list resource \\\"nodes\\\"\""));
    assert_int_equal(ms_delta_queue_len(e->q), 0);
    env_free(e);
}

static void test_empty_watches_do_not_spin(void **state) {
    (void)state;
    env *e = env_new();
    e->s.empty_watches = true;
    ms_informer_options o = {
        .client = e->client, .resource = &ms_informer_nodes, .decode_ctx = &e->dec, .queue = e->q,
        .log = &e->logger, .backoff_initial = 0.1,
    };
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    fh_sleep(0.5);
    ms_informer_stop(inf);
    int w = atomic_load(&e->s.watches);
    assert_true(w >= 2 && w <= 5);
    seen got = {0};
    collect(e, &got, "synced");
    assert_int_equal(got.n, 4);   /* n1 n2 n3 synced */
    env_free(e);
}

/* A LIST of n1 at 10; the first watch sends n2 whole (11), then half an
 * event (its line cut: n3) and holds the stream; the second sends n3
 * again, then n4 (13), and holds. */
static bool broken_line_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    script *s = ctx;
    if (!has(r->path, "watch=1"))
        return fh_reply(fd, 200, NULL, "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":["
                                       NODE("n1", "1") "]}");
    int w = atomic_fetch_add(&s->watches, 1);
    if (w < 8) snprintf(s->watch_paths[w], sizeof s->watch_paths[w], "%s", r->path);
    fh_stream_begin(fd, 200);
    if (w == 0) {
        fh_stream_str(fd, EVENT("ADDED", NODE("n2", "11")), 0.02);
        fh_stream_str(fd, "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"n3\",\"resourceV\n", 0);
    } else if (w == 1) {
        fh_stream_str(fd, EVENT("ADDED", NODE("n3", "12")) EVENT("ADDED", NODE("n4", "13")), 0);
    }
    fh_stream_hold(srv, fd);
    return false;
}

/* Watches 0-2 fail at once (403), then watch 3 delivers an event, lasts
 * 1.2 s and breaks off inside a line; watch 4 holds. */
static bool healthy_then_broken_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    script *s = ctx;
    if (!has(r->path, "watch=1"))
        return fh_reply(fd, 200, NULL, "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[]}");
    int w = atomic_fetch_add(&s->watches, 1);
    if (w < 3) return fh_reply(fd, 403, NULL, "{\"kind\":\"Status\",\"code\":403}");
    fh_stream_begin(fd, 200);
    if (w == 3) {
        fh_stream_str(fd, EVENT("ADDED", NODE("n1", "11")), 1.2);
        fh_stream_str(fd, "{\"type\":\"ADD", 0);
        return fh_stream_end(fd);
    }
    fh_stream_hold(srv, fd);
    return false;
}

/* The failure of a healthy watch is backed off from the initial delay,
 * not from where the failures before it left the backoff. */
static void test_healthy_watch_resets_backoff(void **state) {
    (void)state;
    env *e = env_serve(healthy_then_broken_handler, NULL);
    ms_informer_options o = {
        .client = e->client, .resource = &ms_informer_nodes, .decode_ctx = &e->dec, .queue = e->q,
        .log = &e->logger, .backoff_initial = 0.1, .backoff_max = 5,
    };
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    /* 0.1 + 0.2 + 0.4 (+25%) for the 403s, 1.2 for the healthy watch, then
     * 0.1 (not 0.8) before the fifth */
    double t0 = fh_now();
    while (atomic_load(&e->s.watches) < 5 && fh_now() - t0 < 5) fh_sleep(0.01);
    double took = fh_now() - t0;
    ms_informer_stop(inf);
    assert_int_equal(atomic_load(&e->s.watches), 5);
    assert_true(took < 2.5);
    env_free(e);
}

/* Watches 0-2 fail at once (403); watch 3 is accepted, holds 1.2 s with
 * no event (a quiet resource) and breaks off inside a line; watch 4 is
 * throttled (429, Retry-After: 1); watch 5 fails (403); watch 6 holds. */
static bool quiet_then_throttled_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    script *s = ctx;
    if (!has(r->path, "watch=1"))
        return fh_reply(fd, 200, NULL, "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[]}");
    int w = atomic_fetch_add(&s->watches, 1);
    if (w < 3 || w == 5) return fh_reply(fd, 403, NULL, "{\"kind\":\"Status\",\"code\":403}");
    if (w == 4)
        return fh_reply(fd, 429, "Retry-After: 1\r\n",
                        "{\"kind\":\"Status\",\"reason\":\"TooManyRequests\",\"code\":429}");
    fh_stream_begin(fd, 200);
    if (w == 3) {
        fh_sleep(1.2);
        fh_stream_str(fd, "{\"type\":\"ADD", 0);
        return fh_stream_end(fd);
    }
    fh_stream_hold(srv, fd);
    return false;
}

/* The delays the informer logged ("backing off ... seconds=S"), in order,
 * with " R" after those that were the server's Retry-After. */
static int logged_delays(env *e, char out[][24], int max) {
    int n = 0;
    for (const char *p = e->lg.text; n < max && (p = strstr(p, "msg=\"backing off\"")); p++) {
        const char *sec = strstr(p, "seconds="), *eol = strchr(p, '\n');
        if (!sec || (eol && sec > eol)) continue;
        double v = strtod(sec + 8, NULL);
        const char *ra = strstr(p, "as=Retry-After");
        snprintf(out[n++], sizeof out[0], "%.2f%s", v, ra && (!eol || ra < eol) ? " R" : "");
    }
    return n;
}

/* Runs an informer of nodes (backoff from 0.1 s to 5 s) through client
 * until the server has seen `watches` WATCH requests (20 s at most). */
static void run_until_watches(env *e, ms_kube_client *client, int watches) {
    ms_informer_options o = {
        .client = client, .resource = &ms_informer_nodes, .decode_ctx = &e->dec, .queue = e->q,
        .log = &e->logger, .backoff_initial = 0.1, .backoff_max = 5,
    };
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    double t0 = fh_now();
    while (atomic_load(&e->s.watches) < watches && fh_now() - t0 < 20) fh_sleep(0.01);
    ms_informer_stop(inf);
    assert_int_equal(atomic_load(&e->s.watches), watches);
}

/* The backoff rules in the informer (client/backoff.h): a watch that was
 * accepted and held is a recovery, events or not, so the next failure
 * waits the initial delay; a 429's Retry-After is waited for as it says
 * and does not double the delay of the failure after it. */
static void test_quiet_watch_and_retry_after(void **state) {
    (void)state;
    env *e = env_serve(quiet_then_throttled_handler, NULL);
    /* without the client's own retries, so that the informer sees the 429 */
    ms_kube_client_options co = {.config = &e->kc, .log = &e->logger, .max_retries = -1};
    ms_kube_client *client;
    ms_error err = {0};
    assert_int_equal(ms_kube_client_new(&co, &client, &err), MS_OK);
    run_until_watches(e, client, 7);
    ms_kube_client_free(client);
    char d[8][24];
    assert_int_equal(logged_delays(e, d, 8), 6);
    /* 0.1, 0.2, 0.4 (each up to 25% more) for the 403s */
    assert_true(strtod(d[0], NULL) >= 0.1 && strtod(d[0], NULL) <= 0.125);
    assert_true(strtod(d[2], NULL) >= 0.4 && strtod(d[2], NULL) <= 0.5);
    /* after the quiet watch that held: 0.1 again, not 0.8 */
    assert_true(strtod(d[3], NULL) >= 0.1 && strtod(d[3], NULL) <= 0.125);
    assert_string_equal(d[4], "1.00 R");
    /* after the 429: 0.2, where the spell was before it */
    assert_true(strtod(d[5], NULL) >= 0.2 && strtod(d[5], NULL) <= 0.25);
    env_free(e);
}

/* LISTs 0-2 fail (403), LIST 3 answers; watch 0 is ended at once with no
 * event; watch 1 holds. */
static bool relist_then_empty_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    script *s = ctx;
    if (!has(r->path, "watch=1")) {
        if (atomic_fetch_add(&s->lists, 1) < 3) return fh_reply(fd, 403, NULL, "{\"kind\":\"Status\",\"code\":403}");
        return fh_reply(fd, 200, NULL, "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[]}");
    }
    fh_stream_begin(fd, 200);
    if (atomic_fetch_add(&s->watches, 1) == 0) return fh_stream_end(fd);
    fh_stream_hold(srv, fd);
    return false;
}

/* A LIST answered in full ends the spell of failures before it: a watch
 * the server then ends at once (a failure in disguise) waits the initial
 * delay, not the doubled last one (a node watch ended so less than a
 * second after the relist that followed failed LISTs could wait up to
 * 37.5 s in the fault suite). */
static void test_answered_list_ends_the_spell(void **state) {
    (void)state;
    env *e = env_serve(relist_then_empty_handler, NULL);
    run_until_watches(e, e->client, 2);
    char d[8][24];
    assert_int_equal(logged_delays(e, d, 8), 4);
    assert_true(strtod(d[2], NULL) >= 0.4 && strtod(d[2], NULL) <= 0.5);
    assert_true(strtod(d[3], NULL) >= 0.1 && strtod(d[3], NULL) <= 0.125);
    env_free(e);
}

/* A broken line ends the watch, and the next one resumes after the last
 * event read whole: the change the line carried comes again. */
static void test_broken_watch_line_watches_again(void **state) {
    (void)state;
    env *e = env_serve(broken_line_handler, NULL);
    e->s.watches = 0;
    ms_informer_options o = {
        .client = e->client, .resource = &ms_informer_nodes, .decode_ctx = &e->dec, .queue = e->q,
        .log = &e->logger, .backoff_initial = 0.05,
    };
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    seen got = {0};
    assert_true(collect(e, &got, "add n4") > 0);
    static const char *const want[] = {"add n1", "synced", "add n2", "add n3", "add n4"};
    assert_int_equal(got.n, sizeof want / sizeof want[0]);
    for (int i = 0; i < got.n; i++) assert_string_equal(got.what[i], want[i]);
    ms_informer_stats st;
    ms_informer_stats_get(inf, &st);
    assert_int_equal(st.lists, 1);
    assert_int_equal(st.failures, 1);
    ms_informer_stop(inf);
    assert_int_equal(atomic_load(&e->s.watches), 2);
    assert_true(has(e->s.watch_paths[1], "&resourceVersion=11"));
    assert_non_null(strstr(e->lg.text, "msg=\"watch event is not JSON; watching again from the last one read\" "
                                       "resource=/api/v1/nodes resourceVersion=11"));
    env_free(e);
}

/* Watches 0-3 answer 410 at once; watch 4 delivers an event, lasts 1.2 s
 * and ends with an ERROR 410 event; watch 5 answers 410 at once; watch 6
 * holds. */
static bool gone_after_healthy_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    script *s = ctx;
    if (!has(r->path, "watch=1"))
        return fh_reply(fd, 200, NULL, "{\"kind\":\"NodeList\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":[]}");
    int w = atomic_fetch_add(&s->watches, 1);
    if (w < 8) s->watch_at[w] = fh_now();
    if (w < 4 || w == 5) return fh_reply(fd, 410, NULL, "{\"kind\":\"Status\",\"reason\":\"Expired\",\"code\":410}");
    fh_stream_begin(fd, 200);
    if (w == 4) {
        fh_stream_str(fd, EVENT("ADDED", NODE("n1", "11")), 1.2);
        fh_stream_str(fd, EVENT("ERROR", "{\"kind\":\"Status\",\"reason\":\"Expired\",\"code\":410}"), 0);
        return fh_stream_end(fd);
    }
    fh_stream_hold(srv, fd);
    return false;
}

/* 410s after a healthy watch are backed off from the initial delay again. */
static void test_gone_after_healthy_watch(void **state) {
    (void)state;
    env *e = env_serve(gone_after_healthy_handler, NULL);
    ms_informer_options o = {
        .client = e->client, .resource = &ms_informer_nodes, .decode_ctx = &e->dec, .queue = e->q,
        .log = &e->logger, .backoff_initial = 0.1, .backoff_max = 5,
    };
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    double t0 = fh_now();
    while (atomic_load(&e->s.watches) < 7 && fh_now() - t0 < 8) fh_sleep(0.01);
    ms_informer_stop(inf);
    assert_int_equal(atomic_load(&e->s.watches), 7);
    /* the first relist at once, then 0.1, 0.2, 0.4 s (+25%) before watches
     * 2-4; before watch 6, 0.1 s again (not 0.8) */
    assert_true(e->s.watch_at[4] - e->s.watch_at[3] >= 0.35);
    assert_true(e->s.watch_at[6] - e->s.watch_at[5] < 0.3);
    env_free(e);
}

/* A server that answers 410 to every watch is not listed in a tight loop:
 * the first relist is at once, the next ones back off. */
static void test_gone_again_backs_off(void **state) {
    (void)state;
    env *e = env_new();
    e->s.always_gone = true;
    ms_informer_options o = {
        .client = e->client, .resource = &ms_informer_nodes, .decode_ctx = &e->dec, .queue = e->q,
        .log = &e->logger, .backoff_initial = 0.05, .backoff_max = 0.2,
    };
    ms_informer *inf;
    ms_error err = {0};
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    fh_sleep(0.6);
    ms_informer_stop(inf);
    /* 0, 0.05, 0.1, 0.2, 0.2 ... (+ up to 25%): a handful, not hundreds */
    int w = atomic_load(&e->s.watches);
    assert_true(w >= 3 && w <= 7);
    env_free(e);
}

static bool pod_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    (void)ctx;
    if (!has(r->path, "watch=1"))
        return fh_reply(fd, 200, NULL,
                        "{\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[{\"metadata\":{"
                        "\"name\":\"web\",\"namespace\":\"prod\",\"resourceVersion\":\"4\"},\"spec\":{\"containers\":[{"
                        "\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"250m\"}}}]}}]}");
    fh_stream_begin(fd, 200);
    /* a delete for a pod never seen is not passed on */
    fh_stream_str(fd, EVENT("DELETED", "{\"metadata\":{\"name\":\"ghost\",\"namespace\":\"prod\",\"resourceVersion\":\"6\"}}"), 0);
    fh_stream_str(fd, EVENT("DELETED", "{\"metadata\":{\"name\":\"web\",\"namespace\":\"prod\",\"resourceVersion\":\"7\"},"
                                       "\"status\":{\"phase\":\"Succeeded\"}}"), 0);
    fh_stream_hold(srv, fd);
    return false;
}

static void test_pods(void **state) {
    (void)state;
    env *e = env_serve(pod_handler, NULL);
    fake_http *srv = e->srv;
    ms_kube_client *client = e->client;
    ms_error err = {0};
    ms_informer_options o = {
        .client = client, .resource = &ms_informer_pods, .decode_ctx = &e->dec, .queue = e->q,
        .log = &e->logger, .label_selector = "app in (web,api)",
    };
    ms_informer *inf;
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    ms_delta d[4];
    size_t n = 0;
    double deadline = fh_now() + 10;
    while (n < 3 && fh_now() < deadline) n += ms_delta_queue_pop(e->q, d + n, 4 - n, 0.2);
    assert_int_equal(n, 3);
    assert_int_equal(d[0].type, MS_DELTA_ADD);
    assert_int_equal(d[0].kind, MS_KIND_POD);
    assert_int_equal(d[0].pod->requests.v[MS_RES_CPU], 250);
    assert_string_equal(ms_str_get(e->in, d[0].pod->meta.namespace_), "prod");
    assert_int_equal(d[1].type, MS_DELTA_SYNCED);
    assert_int_equal(d[1].kind, MS_KIND_POD);
    assert_int_equal(d[2].type, MS_DELTA_DELETE);
    assert_int_equal(d[2].pod->phase, MS_PHASE_SUCCEEDED);   /* the final state from the event */
    assert_false(d[2].final_state_unknown);
    for (size_t i = 0; i < n; i++) ms_delta_release(&d[i]);
    ms_informer_stop(inf);
    const char *list = srv->reqs[0].path;
    assert_string_equal(list, "/api/v1/pods?limit=500&resourceVersion=0&fieldSelector=status.phase%21%3DSucceeded%2Cstatus.phase%21%3DFailed"
                              "&labelSelector=app%20in%20%28web%2Capi%29");
    env_free(e);
}

/* A server without policy/v1 (before 1.21): the first LIST answers 404,
 * the informer lists and watches policy/v1beta1 from then on, and the
 * list's items (which carry no apiVersion) decode as v1beta1 PDBs. */
static bool pdb_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    (void)ctx;
    if (has(r->path, "/apis/policy/v1/"))
        return fh_reply(fd, 404, NULL,
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"the server "
                        "could not find the requested resource\",\"reason\":\"NotFound\",\"code\":404}");
    if (!has(r->path, "watch=1"))
        return fh_reply(fd, 200, NULL,
                        "{\"apiVersion\":\"policy/v1beta1\",\"kind\":\"PodDisruptionBudgetList\",\"metadata\":{"
                        "\"resourceVersion\":\"5\"},\"items\":[{\"metadata\":{\"name\":\"db\",\"namespace\":\"prod\","
                        "\"resourceVersion\":\"4\"},\"spec\":{\"minAvailable\":\"50%\",\"selector\":{\"matchLabels\":{"
                        "\"app\":\"db\"}}},\"status\":{\"disruptionsAllowed\":1}}]}");
    fh_stream_begin(fd, 200);
    fh_stream_str(fd, EVENT("DELETED", "{\"apiVersion\":\"policy/v1beta1\",\"kind\":\"PodDisruptionBudget\","
                                       "\"metadata\":{\"name\":\"db\",\"namespace\":\"prod\",\"resourceVersion\":\"6\"},"
                                       "\"spec\":{\"maxUnavailable\":1}}"), 0);
    fh_stream_hold(srv, fd);
    return false;
}

static void test_pdbs_fall_back_to_v1beta1(void **state) {
    (void)state;
    env *e = env_serve(pdb_handler, NULL);
    fake_http *srv = e->srv;
    ms_kube_client *client = e->client;
    ms_error err = {0};
    ms_informer_options o = {.client = client, .resource = &ms_informer_pdbs, .decode_ctx = &e->dec,
                             .queue = e->q, .log = &e->logger, .backoff_initial = 5};
    ms_informer *inf;
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    ms_delta d[4];
    size_t n = 0;
    double deadline = fh_now() + 10;
    while (n < 3 && fh_now() < deadline) n += ms_delta_queue_pop(e->q, d + n, 4 - n, 0.2);
    assert_int_equal(n, 3);
    assert_int_equal(d[0].type, MS_DELTA_ADD);
    assert_int_equal(d[0].kind, MS_KIND_PDB);
    assert_int_equal(d[0].pdb->api_version, MS_PDB_POLICY_V1BETA1);
    assert_true(d[0].pdb->min_available.set && d[0].pdb->min_available.percent);
    assert_int_equal(d[0].pdb->min_available.value, 50);
    assert_int_equal(d[0].pdb->disruptions_allowed, 1);
    assert_string_equal(ms_str_get(e->in, d[0].pdb->meta.namespace_), "prod");
    assert_int_equal(d[1].type, MS_DELTA_SYNCED);
    assert_int_equal(d[1].kind, MS_KIND_PDB);
    assert_int_equal(d[2].type, MS_DELTA_DELETE);
    assert_int_equal(d[2].pdb->api_version, MS_PDB_POLICY_V1BETA1);
    assert_int_equal(d[2].pdb->max_unavailable.value, 1);   /* the final state from the event */
    assert_string_equal(ms_object_kind_name(MS_KIND_PDB), "PodDisruptionBudget");
    for (size_t i = 0; i < n; i++) ms_delta_release(&d[i]);
    ms_informer_stats st;
    ms_informer_stats_get(inf, &st);
    assert_true(st.fallback);
    assert_int_equal(st.failures, 0);   /* the 404 is not a failure: no backoff */
    assert_string_equal(ms_informer_path(inf), "/apis/policy/v1beta1/poddisruptionbudgets");
    ms_informer_stop(inf);
    assert_true(fh_nreqs(srv) >= 3);
    assert_string_equal(srv->reqs[0].path, "/apis/policy/v1/poddisruptionbudgets?limit=500&resourceVersion=0");
    assert_string_equal(srv->reqs[1].path, "/apis/policy/v1beta1/poddisruptionbudgets?limit=500&resourceVersion=0");
    assert_true(has(srv->reqs[2].path, "/apis/policy/v1beta1/poddisruptionbudgets?watch=1"));
    env_free(e);
}

/* Namespaces: their labels arrive; a resource without a fallback path
 * keeps its path (policy/v1 served: no switch either). */
static bool ns_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    (void)ctx;
    if (!has(r->path, "watch=1"))
        return fh_reply(fd, 200, NULL,
                        "{\"apiVersion\":\"v1\",\"kind\":\"NamespaceList\",\"metadata\":{\"resourceVersion\":\"5\"},"
                        "\"items\":[{\"metadata\":{\"name\":\"team-a\",\"resourceVersion\":\"3\",\"labels\":{\"team\":"
                        "\"a\"}}}]}");
    fh_stream_begin(fd, 200);
    fh_stream_str(fd, EVENT("MODIFIED", "{\"metadata\":{\"name\":\"team-a\",\"resourceVersion\":\"7\",\"labels\":{"
                                        "\"team\":\"b\",\"tier\":\"x\"}}}"), 0);
    fh_stream_hold(srv, fd);
    return false;
}

static void test_namespaces(void **state) {
    (void)state;
    env *e = env_serve(ns_handler, NULL);
    fake_http *srv = e->srv;
    ms_kube_client *client = e->client;
    ms_error err = {0};
    ms_informer_options o = {.client = client, .resource = &ms_informer_namespaces, .decode_ctx = &e->dec,
                             .queue = e->q, .log = &e->logger};
    ms_informer *inf;
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    ms_delta d[4];
    size_t n = 0;
    double deadline = fh_now() + 10;
    while (n < 3 && fh_now() < deadline) n += ms_delta_queue_pop(e->q, d + n, 4 - n, 0.2);
    assert_int_equal(n, 3);
    ms_str team = ms_intern_cstr(e->in, "team");
    assert_int_equal(d[0].type, MS_DELTA_ADD);
    assert_int_equal(d[0].kind, MS_KIND_NAMESPACE);
    assert_string_equal(ms_str_get(e->in, d[0].ns->meta.name), "team-a");
    assert_string_equal(ms_str_get(e->in, ms_labels_get(&d[0].ns->meta.labels, team)), "a");
    assert_int_equal(d[1].type, MS_DELTA_SYNCED);
    assert_int_equal(d[1].kind, MS_KIND_NAMESPACE);
    assert_int_equal(d[2].type, MS_DELTA_UPDATE);
    assert_int_equal(d[2].ns->meta.labels.n, 2);
    assert_string_equal(ms_str_get(e->in, ms_labels_get(&d[2].ns->meta.labels, team)), "b");
    for (size_t i = 0; i < n; i++) ms_delta_release(&d[i]);
    ms_informer_stats st;
    ms_informer_stats_get(inf, &st);
    assert_false(st.fallback);
    assert_string_equal(ms_informer_path(inf), "/api/v1/namespaces");
    ms_informer_stop(inf);
    assert_string_equal(srv->reqs[0].path, "/api/v1/namespaces?limit=500&resourceVersion=0");
    env_free(e);
}

/* Namespaces may be forbidden (v1.20's scheduler role): the first 403
 * counts as synced with nothing, and the retried LIST brings them later. */
static bool ns_forbidden_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    atomic_int *lists = ctx;
    if (!has(r->path, "watch=1") && atomic_fetch_add(lists, 1) == 0)
        return fh_reply(fd, 403, NULL,
                        "{\"kind\":\"Status\",\"message\":\"namespaces is forbidden\",\"code\":403}");
    return ns_handler(srv, fd, r, NULL);
}

static void test_optional_resource_forbidden(void **state) {
    (void)state;
    atomic_int lists = 0;
    env *e = env_serve(ns_forbidden_handler, &lists);
    ms_kube_client *client = e->client;
    ms_error err = {0};
    ms_informer_options o = {.client = client, .resource = &ms_informer_namespaces, .decode_ctx = &e->dec,
                             .queue = e->q, .log = &e->logger, .backoff_initial = 0.05};
    ms_informer *inf;
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    ms_delta d[4];
    size_t n = 0;
    double deadline = fh_now() + 10;
    while (n < 3 && fh_now() < deadline) n += ms_delta_queue_pop(e->q, d + n, 4 - n, 0.2);
    assert_int_equal(n, 3);
    assert_int_equal(d[0].type, MS_DELTA_SYNCED);   /* before any object: the 403 */
    assert_int_equal(d[0].kind, MS_KIND_NAMESPACE);
    assert_int_equal(d[1].type, MS_DELTA_ADD);      /* the retried LIST */
    assert_string_equal(ms_str_get(e->in, d[1].ns->meta.name), "team-a");
    assert_int_equal(d[2].type, MS_DELTA_UPDATE);   /* and the watch after it */
    for (size_t i = 0; i < n; i++) ms_delta_release(&d[i]);
    assert_true(ms_informer_has_synced(inf));
    ms_informer_stop(inf);
    assert_int_equal(atomic_load(&lists), 2);
    pthread_mutex_lock(&e->lg.mu);
    assert_non_null(strstr(e->lg.text, "list forbidden"));
    pthread_mutex_unlock(&e->lg.mu);
    env_free(e);
}

/* CSIStorageCapacities on a v1.20 server: neither storage.k8s.io/v1 nor
 * v1beta1 is served. An optional resource counts as synced with none,
 * said once; the retried LISTs stay quiet. */
static bool not_served_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    (void)srv;
    atomic_int *lists = ctx;
    atomic_fetch_add(lists, 1);
    (void)r;
    return fh_reply(fd, 404, NULL, "{\"kind\":\"Status\",\"message\":\"the server could not find the "
                                   "requested resource\",\"reason\":\"NotFound\",\"code\":404}");
}

/* Runs the optional `res` against `handler` (which counts the LISTs in its
 * ctx) until `lists_wanted` LISTs came: synced at once with nothing, the
 * refusal said once (`once`, in a line that also has `also`), the
 * retries quiet. */
static void said_once(bool (*handler)(fake_http *, int, const fh_request *, void *), const ms_informer_resource *res,
                      int lists_wanted, const char *once, const char *also) {
    atomic_int lists = 0;
    env *e = env_serve(handler, &lists);
    ms_error err = {0};
    ms_informer_options o = {.client = e->client, .resource = res, .decode_ctx = &e->dec,
                             .queue = e->q, .log = &e->logger, .backoff_initial = 0.05, .backoff_max = 0.05};
    ms_informer *inf;
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    ms_delta d[1];
    assert_int_equal(ms_delta_queue_pop(e->q, d, 1, 5), 1);
    assert_int_equal(d[0].type, MS_DELTA_SYNCED);
    assert_int_equal(d[0].kind, res->kind);
    double deadline = fh_now() + 5;
    while (!ms_informer_has_synced(inf) && fh_now() < deadline) fh_sleep(0.01);
    assert_true(ms_informer_has_synced(inf));
    while (atomic_load(&lists) < lists_wanted && fh_now() < deadline) fh_sleep(0.01);
    ms_informer_stop(inf);
    assert_true(atomic_load(&lists) >= lists_wanted);
    pthread_mutex_lock(&e->lg.mu);
    const char *said = strstr(e->lg.text, once);
    assert_non_null(said);
    assert_null(strstr(said + strlen(once), once));
    assert_null(strstr(e->lg.text, "list failed"));
    assert_non_null(strstr(e->lg.text, also));
    pthread_mutex_unlock(&e->lg.mu);
    env_free(e);
}

static void test_optional_resource_not_served(void **state) {
    (void)state;
    /* v1, v1beta1, then retries */
    said_once(not_served_handler, &ms_informer_csi_capacities, 5, "resource not served; going on without it and retrying",
              "resource=/apis/storage.k8s.io/v1beta1/csistoragecapacities");
}

/* ResourceClaims from a server that serves resource.k8s.io/v1 (standing
 * for a 1.34 one: the 1.20 apiserver of the end-to-end suites serves no
 * such group): decoded into DRA objects, and when the synced delta is
 * read, the informer already counts its list, which tells run's consumer
 * the group is served (a 404 leaves the count at 0, as above). */
static bool claims_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    (void)ctx;
    if (has(r->path, "watch=1")) {
        fh_stream_begin(fd, 200);
        fh_stream_hold(srv, fd);
        return false;
    }
    if (!has(r->path, "/apis/resource.k8s.io/v1/resourceclaims?"))
        return fh_reply(fd, 404, NULL, "{\"kind\":\"Status\",\"code\":404}");
    return fh_reply(fd, 200, NULL,
                    "{\"kind\":\"ResourceClaimList\",\"apiVersion\":\"resource.k8s.io/v1\",\"metadata\":"
                    "{\"resourceVersion\":\"12\"},\"items\":[{\"metadata\":{\"name\":\"gpu\",\"namespace\":"
                    "\"ml\",\"uid\":\"u\",\"resourceVersion\":\"11\"},\"spec\":{\"devices\":{\"requests\":"
                    "[{\"name\":\"r\",\"exactly\":{\"deviceClassName\":\"gpu\"}}]}}}]}");
}

static void test_resource_claims(void **state) {
    (void)state;
    env *e = env_serve(claims_handler, NULL);
    ms_error err = {0};
    ms_informer_options o = {.client = e->client, .resource = &ms_informer_resource_claims, .decode_ctx = &e->dec,
                             .queue = e->q, .log = &e->logger};
    ms_informer *inf;
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    ms_delta d[2];
    size_t n = 0;
    double deadline = fh_now() + 10;
    while (n < 2 && fh_now() < deadline) n += ms_delta_queue_pop(e->q, d + n, 2 - n, 0.2);
    assert_int_equal(n, 2);
    assert_int_equal(d[0].type, MS_DELTA_ADD);
    assert_int_equal(d[0].kind, MS_KIND_RESOURCE_CLAIM);
    assert_string_equal(ms_str_get(e->in, d[0].dra->meta.name), "gpu");
    assert_int_equal(d[0].dra->u.claim.spec.nrequests, 1);
    assert_int_equal(d[1].type, MS_DELTA_SYNCED);
    ms_informer_stats st;
    ms_informer_stats_get(inf, &st);
    assert_int_equal(st.lists, 1);
    for (size_t i = 0; i < n; i++) ms_delta_release(&d[i]);
    ms_informer_stop(inf);

    /* DeviceClasses not served: synced with none, no list counted */
    o.resource = &ms_informer_device_classes;
    assert_int_equal(ms_informer_start(&o, &inf, &err), MS_OK);
    assert_int_equal(ms_delta_queue_pop(e->q, d, 1, 10), 1);
    assert_int_equal(d[0].type, MS_DELTA_SYNCED);
    assert_int_equal(d[0].kind, MS_KIND_DEVICE_CLASS);
    ms_informer_stats_get(inf, &st);
    assert_int_equal(st.lists, 0);
    ms_informer_stop(inf);
    env_free(e);
}

/* A refusal that lasts (an RBAC without the rules of an optional
 * resource, as system:kube-scheduler before 1.34 for resource.k8s.io):
 * said once; the retried LISTs stay quiet. */
static bool always_forbidden_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    (void)srv;
    (void)r;
    atomic_fetch_add((atomic_int *)ctx, 1);
    return fh_reply(fd, 403, NULL, "{\"kind\":\"Status\",\"message\":\"deviceclasses.resource.k8s.io is forbidden\","
                                   "\"reason\":\"Forbidden\",\"code\":403}");
}

static void test_optional_resource_forbidden_quietly(void **state) {
    (void)state;
    said_once(always_forbidden_handler, &ms_informer_device_classes, 4,
              "list forbidden; going on without this resource and retrying",
              "resource=/apis/resource.k8s.io/v1/deviceclasses");
}

static void test_resource_version_compare(void **state) {
    (void)state;
    assert_true(ms_resource_version_compare("9", "10") < 0);
    assert_true(ms_resource_version_compare("10", "9") > 0);
    assert_int_equal(ms_resource_version_compare("10", "10"), 0);
    assert_int_equal(ms_resource_version_compare("abc", "10"), 0);   /* opaque: never older */
    assert_int_equal(ms_resource_version_compare("", "10"), 0);
    assert_true(ms_resource_version_compare("18446744073709551615", "18446744073709551614") > 0);
}

/* The watch-event handling on its own, as the fuzz target drives it. */
static void test_detached_watch_lines(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    ms_decoder d;
    ms_decoder_init(&d, in);
    ms_delta_queue *q = ms_delta_queue_new();
    ms_logger quiet = {.level = -1};
    ms_informer_options o = {.resource = &ms_informer_pods, .decode_ctx = &d, .queue = q, .log = &quiet};
    ms_informer *inf;
    ms_error err;
    assert_int_equal(ms_informer_new_detached(&o, &inf, &err), MS_OK);
    char add[] = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\","
                 "\"uid\":\"u\",\"resourceVersion\":\"5\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}}";
    char del[] = "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\","
                 "\"uid\":\"u\",\"resourceVersion\":\"6\"},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}}";
    char junk[] = "not json";
    char gone[] = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410}}";
    assert_int_equal(ms_informer_watch_line(inf, add, strlen(add)), 0);
    assert_int_equal(ms_informer_watch_line(inf, del, strlen(del)), 0);
    /* not an event: the watch ends (and is made again) */
    assert_int_not_equal(ms_informer_watch_line(inf, junk, strlen(junk)), 0);
    assert_int_not_equal(ms_informer_watch_line(inf, gone, strlen(gone)), 0);
    ms_delta out[4];
    assert_int_equal(ms_delta_queue_pop(q, out, 4, 0), 2);
    assert_int_equal(out[0].type, MS_DELTA_ADD);
    assert_int_equal(out[1].type, MS_DELTA_DELETE);
    assert_string_equal(ms_str_get(in, out[1].pod->meta.name), "p");
    ms_delta_release(&out[0]);
    ms_delta_release(&out[1]);
    ms_informer_stop(inf);
    ms_delta_queue_free(q);
    ms_interner_free(in);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_watch_relist),
        cmocka_unit_test(test_list_items_as_they_arrive),
        cmocka_unit_test(test_expired_continue_lists_without_pages),
        cmocka_unit_test(test_expired_again_backs_off),
        cmocka_unit_test(test_failures_back_off_and_stop_quickly),
        cmocka_unit_test(test_empty_watches_do_not_spin),
        cmocka_unit_test(test_broken_watch_line_watches_again),
        cmocka_unit_test(test_healthy_watch_resets_backoff),
        cmocka_unit_test(test_quiet_watch_and_retry_after),
        cmocka_unit_test(test_answered_list_ends_the_spell),
        cmocka_unit_test(test_gone_again_backs_off),
        cmocka_unit_test(test_gone_after_healthy_watch),
        cmocka_unit_test(test_pods),
        cmocka_unit_test(test_pdbs_fall_back_to_v1beta1),
        cmocka_unit_test(test_namespaces),
        cmocka_unit_test(test_optional_resource_forbidden),
        cmocka_unit_test(test_optional_resource_not_served),
        cmocka_unit_test(test_resource_claims),
        cmocka_unit_test(test_optional_resource_forbidden_quietly),
        cmocka_unit_test(test_resource_version_compare),
        cmocka_unit_test(test_detached_watch_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
