/* The API server's ceiling for a scheduler: lists the pods of one
 * schedulerName that have no node once, then watches for new ones, and for
 * each POSTs one Binding (nodes round-robin) and, once it is accepted, one
 * events.k8s.io/v1 Event, and nothing else: no cache, no Filter, no Score.
 * make bench-live runs it beside moonsched and kube-scheduler on the same
 * apiserver, at several concurrency levels, and takes the best as the
 * ceiling, so moonsched's pods/s can be read as a fraction of what the
 * server accepts.
 *
 *   noop_binder URL CA_FILE TOKEN_FILE [SCHEDULER_NAME [IN_FLIGHT [STREAMS]]]
 *
 * libcurl multi: IN_FLIGHT (default 64) requests at most at a time, HTTP/2
 * streams multiplexed with at most STREAMS (default IN_FLIGHT) per
 * connection, so IN_FLIGHT/STREAMS connections: one connection's streams
 * are served by one reader on the server, which can be the limit before
 * the server's CPU is. Runs until killed; prints the bindings and Events
 * posted and failed and the connections opened on SIGTERM.
 *
 * Its first LIST is client-go's first LIST, resourceVersion=0: served from
 * the apiserver's watch cache in one answer, not read from etcd as an
 * unpaged LIST without a resourceVersion is (a quorum read, and the whole
 * list from etcd before the first byte is sent). A ceiling must start
 * binding as early as the server allows, or a scheduler's start-up is
 * compared with a slower one; at 5000 pods (10.7 MB) the cache answered
 * in 0.09 to 0.28 s, the quorum read in 0.16 to 0.38 s on the same server.
 * The cache may be behind etcd: the watch from that list's
 * resourceVersion sends as ADDED whatever the list did not have yet. */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    char *data;
    size_t len, cap;
} text;

static void text_add(text *t, const char *s, size_t n) {
    if (t->len + n + 1 > t->cap) {
        size_t c = t->cap ? t->cap * 2 : 4096;
        while (c < t->len + n + 1) c *= 2;
        char *d = realloc(t->data, c);
        if (!d) abort();
        t->data = d;
        t->cap = c;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = 0;
}

typedef struct binder binder;

/* One request in flight: its body is kept until it completes. */
typedef struct {
    char *body;
    char *then_path, *then_body; /* the Event, posted once the bind succeeded */
} request;

struct binder {
    CURLM *multi;
    const char *url, *ca;
    struct curl_slist *headers;
    char **nodes;
    size_t n_nodes, next_node;
    text watch_buf;
    /* Requests waiting for a slot, FIFO: path and body pairs. */
    char **queue;
    size_t q_head, q_len, q_cap;
    int in_flight, max_in_flight;
    long bound, bind_failed, events, events_failed, connects;
    /* seconds since its start: the first bind sent, the last one accepted;
     * and the binds' answer times (sent to answered), summed */
    double t0, first_bind, last_bound, bind_secs;
    /* uids of the pods a bind was queued for: a new watch resends them */
    char **sent;
    size_t n_sent, sent_cap;
};

static volatile sig_atomic_t stop;
static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

static size_t discard(char *p, size_t s, size_t n, void *u) {
    (void)p;
    (void)u;
    return s * n;
}

static CURL *new_easy(binder *b, const char *path) {
    CURL *e = curl_easy_init();
    if (!e) abort();
    char *u = malloc(strlen(b->url) + strlen(path) + 1);
    if (!u) abort();
    strcpy(u, b->url);
    strcat(u, path);
    curl_easy_setopt(e, CURLOPT_URL, u);
    free(u);
    curl_easy_setopt(e, CURLOPT_CAINFO, b->ca);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, b->headers);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    return e;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void start_post(binder *b, char *path, char *body, char *then_path, char *then_body) {
    if (then_path && b->first_bind == 0) b->first_bind = now_s() - b->t0;
    request *r = malloc(sizeof *r);
    if (!r) abort();
    r->body = body;
    r->then_path = then_path;
    r->then_body = then_body;
    CURL *e = new_easy(b, path);
    free(path);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    curl_multi_add_handle(b->multi, e);
    b->in_flight++;
}

/* Called from the watch's write callback, where libcurl refuses new
 * transfers: the main loop starts them. */
static void enqueue(binder *b, char *path, char *body, char *then_path, char *then_body) {
    if (b->q_len == b->q_cap) {
        size_t c = b->q_cap ? b->q_cap * 2 : 1024;
        char **q = malloc(c * 4 * sizeof *q);
        if (!q) abort();
        for (size_t i = 0; i < b->q_len; i++)
            memcpy(&q[4 * i], &b->queue[4 * ((b->q_head + i) % b->q_cap)], 4 * sizeof *q);
        free(b->queue);
        b->queue = q;
        b->q_head = 0;
        b->q_cap = c;
    }
    char **e = &b->queue[4 * ((b->q_head + b->q_len) % b->q_cap)];
    e[0] = path;
    e[1] = body;
    e[2] = then_path;
    e[3] = then_body;
    b->q_len++;
}

static void drain_queue(binder *b) {
    while (b->q_len && b->in_flight < b->max_in_flight) {
        char **e = &b->queue[4 * b->q_head];
        b->q_head = (b->q_head + 1) % b->q_cap;
        b->q_len--;
        start_post(b, e[0], e[1], e[2], e[3]);
    }
}

static char *printf_alloc(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *printf_alloc(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s) abort();
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Names come from the API server, which validated them as DNS names, so
 * they need no JSON escaping. */
static void bind_pod(binder *b, const char *ns, const char *name, const char *uid) {
    const char *node = b->nodes[b->next_node++ % b->n_nodes];
    char *bind_path = printf_alloc("/api/v1/namespaces/%s/pods/%s/binding", ns, name);
    char *bind_body = printf_alloc("{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"%s\","
                         "\"namespace\":\"%s\",\"uid\":\"%s\"},\"target\":{\"apiVersion\":\"v1\","
                         "\"kind\":\"Node\",\"name\":\"%s\"}}",
                         name, ns, uid, node);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[40];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    enqueue(b, bind_path, bind_body, printf_alloc("/apis/events.k8s.io/v1/namespaces/%s/events", ns),
            printf_alloc("{\"apiVersion\":\"events.k8s.io/v1\",\"kind\":\"Event\",\"metadata\":{"
                         "\"name\":\"%s.%lx\",\"namespace\":\"%s\"},\"eventTime\":\"%s.%06ldZ\","
                         "\"reportingController\":\"noop-binder\",\"reportingInstance\":\"noop-binder\","
                         "\"action\":\"Binding\",\"reason\":\"Scheduled\",\"type\":\"Normal\","
                         "\"regarding\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"namespace\":\"%s\","
                         "\"name\":\"%s\",\"uid\":\"%s\"},\"note\":\"Successfully assigned %s/%s to %s\"}",
                         name, (unsigned long)ts.tv_sec * 1000000000UL + (unsigned long)ts.tv_nsec, ns, when, ts.tv_nsec / 1000, ns, name, uid, ns, name, node));
}

/* Whether uid was seen before; records it if not (open addressing). */
static int seen(binder *b, const char *uid) {
    if (2 * (b->n_sent + 1) > b->sent_cap) {
        size_t cap = b->sent_cap ? 2 * b->sent_cap : 16384;
        char **t = calloc(cap, sizeof *t);
        if (!t) abort();
        for (size_t i = 0; i < b->sent_cap; i++) {
            if (!b->sent[i]) continue;
            size_t h = 5381;
            for (const char *c = b->sent[i]; *c; c++) h = h * 33 + (unsigned char)*c;
            while (t[h % cap]) h++;
            t[h % cap] = b->sent[i];
        }
        free(b->sent);
        b->sent = t;
        b->sent_cap = cap;
    }
    size_t h = 5381;
    for (const char *c = uid; *c; c++) h = h * 33 + (unsigned char)*c;
    for (; b->sent[h % b->sent_cap]; h++)
        if (strcmp(b->sent[h % b->sent_cap], uid) == 0) return 1;
    b->sent[h % b->sent_cap] = strdup(uid);
    b->n_sent++;
    return 0;
}

/* Binds the pod of meta unless a bind was queued for it already. */
static void bind_new(binder *b, const cJSON *meta) {
    const char *ns = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "namespace"));
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "name"));
    const char *uid = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "uid"));
    if (ns && name && uid && !seen(b, uid)) bind_pod(b, ns, name, uid);
}

static void watch_line(binder *b, const char *line) {
    cJSON *ev = cJSON_Parse(line);
    if (!ev) return;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ev, "type");
    if (cJSON_IsString(type) && strcmp(type->valuestring, "ADDED") == 0)
        bind_new(b, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(ev, "object"), "metadata"));
    cJSON_Delete(ev);
}

static size_t on_watch(char *p, size_t s, size_t n, void *u) {
    binder *b = u;
    text_add(&b->watch_buf, p, s * n);
    char *start = b->watch_buf.data, *nl;
    while ((nl = memchr(start, '\n', b->watch_buf.len - (size_t)(start - b->watch_buf.data)))) {
        *nl = 0;
        watch_line(b, start);
        start = nl + 1;
    }
    size_t rest = b->watch_buf.len - (size_t)(start - b->watch_buf.data);
    memmove(b->watch_buf.data, start, rest);
    b->watch_buf.len = rest;
    return s * n;
}

/* GET path in one blocking request, parsed; NULL on any failure. */
static cJSON *get_json(binder *b, const char *path) {
    text t = {0};
    CURL *e = new_easy(b, path);
    FILE *f = open_memstream(&t.data, &t.len);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, f);
    CURLcode cc = curl_easy_perform(e);
    fclose(f);
    curl_easy_cleanup(e);
    cJSON *j = cc == CURLE_OK ? cJSON_Parse(t.data) : NULL;
    free(t.data);
    return j;
}

static void list_nodes(binder *b) {
    cJSON *list = get_json(b, "/api/v1/nodes");
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(list, "items"), *it;
    cJSON_ArrayForEach(it, items) {
        const char *name = cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(it, "metadata"), "name"));
        if (!name) continue;
        char **nn = realloc(b->nodes, (b->n_nodes + 1) * sizeof *nn);
        if (!nn) abort();
        b->nodes = nn;
        b->nodes[b->n_nodes++] = strdup(name);
    }
    cJSON_Delete(list);
}

/* The pods pending when it starts, in one LIST from the watch cache (see
 * the header: the server's fastest answer), parsed whole (a scheduler
 * decodes it item by item to bound its memory); returns the list's
 * resourceVersion for the watch. */
static char *list_pods(binder *b, const char *sched) {
    char *path = printf_alloc(
        "/api/v1/pods?resourceVersion=0&fieldSelector=spec.schedulerName%%3D%s,spec.nodeName%%3D", sched);
    cJSON *list = get_json(b, path);
    free(path);
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(list, "items"))
        bind_new(b, cJSON_GetObjectItemCaseSensitive(it, "metadata"));
    const char *rv = cJSON_GetStringValue(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(list, "metadata"), "resourceVersion"));
    char *out = rv ? strdup(rv) : NULL;
    cJSON_Delete(list);
    return out;
}

/* From rv (the list's), or from none after the server ended a watch: a
 * watch from no resourceVersion starts with an ADDED event for every pod
 * still unbound, those with a bind already queued skipped by uid. */
static CURL *start_watch(binder *b, const char *sched, const char *rv) {
    char *path = printf_alloc("/api/v1/pods?watch=1&fieldSelector=spec.schedulerName%%3D%s,spec.nodeName%%3D%s%s",
                              sched, rv ? "&resourceVersion=" : "", rv ? rv : "");
    CURL *w = new_easy(b, path);
    free(path);
    curl_easy_setopt(w, CURLOPT_WRITEFUNCTION, on_watch);
    curl_easy_setopt(w, CURLOPT_WRITEDATA, b);
    curl_multi_add_handle(b->multi, w);
    return w;
}

static char *read_token(const char *file) {
    FILE *f = fopen(file, "r");
    if (!f) return NULL;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ')) n--;
    buf[n] = 0;
    return strdup(buf);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: noop_binder URL CA_FILE TOKEN_FILE [SCHEDULER_NAME [IN_FLIGHT [STREAMS]]]\n");
        return 2;
    }
    const char *sched = argc > 4 ? argv[4] : "default-scheduler";
    binder b = {.url = argv[1], .ca = argv[2], .max_in_flight = argc > 5 ? atoi(argv[5]) : 64, .t0 = now_s()};
    if (b.max_in_flight < 1) b.max_in_flight = 1;
    int streams = argc > 6 ? atoi(argv[6]) : b.max_in_flight;
    if (streams < 1) streams = 1;
    char *token = read_token(argv[3]);
    if (!token) {
        perror(argv[3]);
        return 1;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    char *auth = printf_alloc("Authorization: Bearer %s", token);
    b.headers = curl_slist_append(NULL, auth);
    b.headers = curl_slist_append(b.headers, "Content-Type: application/json");
    b.headers = curl_slist_append(b.headers, "Accept: application/json");
    list_nodes(&b);
    if (b.n_nodes == 0) {
        fprintf(stderr, "noop_binder: no nodes\n");
        return 1;
    }
    b.multi = curl_multi_init();
    curl_multi_setopt(b.multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    /* Past this many streams on each connection libcurl opens another, up
     * to IN_FLIGHT/STREAMS of them (and one for the watch's stream): the
     * requests beyond wait for a stream rather than open more. */
    curl_multi_setopt(b.multi, CURLMOPT_MAX_CONCURRENT_STREAMS, (long)streams);
    curl_multi_setopt(b.multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)((b.max_in_flight + streams - 1) / streams + 1));
    char *rv = list_pods(&b, sched);
    CURL *w = start_watch(&b, sched, rv);
    free(rv);
    while (!stop) {
        int running;
        curl_multi_perform(b.multi, &running);
        CURLMsg *m;
        int left;
        while ((m = curl_multi_info_read(b.multi, &left))) {
            if (m->msg != CURLMSG_DONE) continue;
            CURL *e = m->easy_handle;
            if (e == w) {
                /* The server ends watches (timeouts, a watcher that fell
                 * behind). */
                curl_multi_remove_handle(b.multi, w);
                curl_easy_cleanup(w);
                b.watch_buf.len = 0;
                w = start_watch(&b, sched, NULL);
                continue;
            }
            request *r;
            long code = 0;
            curl_easy_getinfo(e, CURLINFO_PRIVATE, (char **)&r);
            curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
            long conns = 0;
            curl_easy_getinfo(e, CURLINFO_NUM_CONNECTS, &conns);
            b.connects += conns;
            int ok = m->data.result == CURLE_OK && code >= 200 && code < 300;
            if (!r->then_path) {
                ok ? b.events++ : b.events_failed++;
            } else if (ok) {
                b.bound++;
                b.last_bound = now_s() - b.t0;
                double took = 0;
                curl_easy_getinfo(e, CURLINFO_TOTAL_TIME, &took);
                b.bind_secs += took;
                enqueue(&b, r->then_path, r->then_body, NULL, NULL);
            } else {
                b.bind_failed++;
                free(r->then_path);
                free(r->then_body);
            }
            curl_multi_remove_handle(b.multi, e);
            curl_easy_cleanup(e);
            free(r->body);
            free(r);
            b.in_flight--;
        }
        drain_queue(&b);
        curl_multi_poll(b.multi, NULL, 0, 200, NULL);
    }
    printf("noop_binder: in flight %d, streams/connection %d: bound %ld (failed %ld), events %ld (failed %ld), "
           "connections opened %ld; first bind sent at %.2f s, last accepted at %.2f s, a bind's answer %.1f ms mean\n",
           b.max_in_flight, streams, b.bound, b.bind_failed, b.events, b.events_failed, b.connects, b.first_bind,
           b.last_bound, b.bound ? 1e3 * b.bind_secs / (double)b.bound : 0.0);
    return 0;
}
