/* The cache debugger: the comparer's thread LISTs from a fake API server
 * and logs each difference and the summary; the dumper logs the cache and
 * the queue. */
#include "testutil.h"

#include <pthread.h>

#include "backend/cache.h"
#include "backend/queue.h"
#include "cache_view_fixtures.h"
#include "run/cache_debugger.h"
#include "fake_api.h"
#include "log_capture.h"

#define POD(name, uid, spec) \
    "{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\",\"uid\":\"" uid "\"},\"spec\":{" spec \
    "\"containers\":[{\"name\":\"c\"}]}}"
#define NODE(name, cpu) "{\"metadata\":{\"name\":\"" name "\"},\"status\":{\"allocatable\":{\"cpu\":\"" cpu "\",\"pods\":\"110\"}}}"

/* n1 (4 cpu) and n2; pod a bound to n1, b pending for default-scheduler,
 * c pending for another scheduler. */
static bool handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    (void)srv;
    bool *fail = ctx;
    if (*fail) return fh_reply(fd, 500, NULL, "{\"kind\":\"Status\",\"message\":\"etcd is away\",\"code\":500}");
    if (strncmp(r->path, "/api/v1/nodes", 13) == 0)
        return fh_reply(fd, 200, NULL, "{\"kind\":\"NodeList\",\"items\":[" NODE("n1", "4") "," NODE("n2", "2") "]}");
    if (strncmp(r->path, "/api/v1/pods?fieldSelector=", 27) == 0)
        return fh_reply(fd, 200, NULL,
                        "{\"kind\":\"PodList\",\"items\":[" POD("a", "ua", "\"nodeName\":\"n1\",") "," POD("b", "ub", "") "," POD(
                            "c", "uc", "\"schedulerName\":\"other\",") "]}");
    return fh_reply(fd, 404, NULL, "{}");
}

typedef struct fx {
    bool fail;
    fa_api api;
    ms_interner *in;
    ms_decoder dec;
    log_capture lg;
    ms_logger log;
    ms_cache_debugger *d;
} fx;

static int setup(void **state) {
    fx *f = calloc(1, sizeof *f);
    log_capture_init(&f->lg);
    f->log = log_capture_logger(&f->lg, MS_LOG_INFO);
    fa_start(&f->api, handler, &f->fail, &f->log);
    ms_error err = {0};
    f->in = ms_interner_new();
    ms_decoder_init(&f->dec, f->in);
    ms_str names[] = {ms_intern_cstr(f->in, "default-scheduler")};
    ms_cache_debugger_options o = {.client = f->api.c, .decoder = &f->dec, .in = f->in, .log = &f->log,
                                   .scheduler_names = names, .nscheduler_names = 1};
    assert_int_equal(ms_cache_debugger_start(&o, &f->d, &err), MS_OK);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx *f = *state;
    ms_cache_debugger_stop(f->d);
    fa_stop(&f->api);
    ms_interner_free(f->in);
    log_capture_free(&f->lg);
    free(f);
    return 0;
}

static ms_node *mknode(fx *f, const char *name, int64_t cpu) { return cvf_node(f->in, name, cpu); }
static ms_pod *mkpod(fx *f, const char *name, const char *uid, const char *node) {
    return cvf_pod(f->in, name, uid, node);
}
static void add_node(fx *f, ms_cache_view *v, const char *name, int64_t cpu) { cvf_add_node(f->in, v, name, cpu); }
static void add_pod(fx *f, ms_cache_view *v, const char *name, const char *uid, const char *node) {
    cvf_add_pod(f->in, v, name, uid, node);
}

/* The decoded LIST against the view: the pod of another scheduler is not
 * counted; the node in the view only, the node on the server only, and
 * the pod on another node are reported. */
static void test_compare_logs_differences(void **state) {
    fx *f = *state;
    ms_cache_view v = {0};
    add_node(f, &v, "n1", 4000);
    add_node(f, &v, "n3", 4000);
    add_pod(f, &v, "a", "ua", "n3");
    add_pod(f, &v, "b", "ub", NULL);
    ms_cache_debugger_compare(f->d, &v);
    assert_null(v.nodes);   /* handed over */
    assert_true(log_capture_wait(&f->lg, "msg=\"cache comparer\" nodes=2 pods=2 differences=3"));
    assert_true(log_capture_has(&f->lg, "msg=\"cache comparer: node differs\" node=n2 difference=missing"));
    assert_true(log_capture_has(&f->lg, "msg=\"cache comparer: node differs\" node=n3 difference=redundant"));
    assert_true(log_capture_has(&f->lg, "msg=\"cache comparer: pod differs\" pod=default/a difference=\"wrong node\" "
                               "cache_node=n3 api_node=n1"));
}

static void test_compare_in_step(void **state) {
    fx *f = *state;
    ms_cache_view v = {0};
    add_node(f, &v, "n2", 2000);
    add_node(f, &v, "n1", 4000);
    add_pod(f, &v, "b", "ub", NULL);
    add_pod(f, &v, "a", "ua", "n1");
    ms_cache_debugger_compare(f->d, &v);
    assert_true(log_capture_wait(&f->lg, "msg=\"cache comparer\" nodes=2 pods=2 differences=0"));
    assert_false(log_capture_has(&f->lg, "differs"));
}

static void test_list_fails(void **state) {
    fx *f = *state;
    f->fail = true;
    ms_cache_view v = {0};
    add_node(f, &v, "n1", 4000);
    ms_cache_debugger_compare(f->d, &v);
    assert_true(log_capture_wait(&f->lg, "msg=\"cache comparer: cannot list\""));
    assert_true(log_capture_has(&f->lg, "etcd is away"));
    assert_false(log_capture_has(&f->lg, "msg=\"cache comparer\" nodes="));
}

/* The dumper: each node with its requests and pods (the assumed one
 * marked), each queue with its pending pods. */
static void test_dump(void **state) {
    fx *f = *state;
    ms_cache *c = ms_cache_new(f->in, 30);
    ms_node *n1 = mknode(f, "n1", 4000);
    assert_int_equal(ms_cache_add_node(c, n1), MS_OK);
    ms_pod *bound = mkpod(f, "a", "ua", "n1"), *assumed = mkpod(f, "x", "ux", "n1");
    ms_pod *pending = mkpod(f, "b", "ub", NULL);
    assert_int_equal(ms_cache_add_pod(c, bound), MS_OK);
    assert_int_equal(ms_cache_assume_pod(c, assumed), MS_OK);
    ms_queue *q = ms_queue_new(NULL);
    assert_int_equal(ms_queue_add(q, pending, 1), MS_OK);
    ms_cache_dump(&f->log, f->in, c, q);
    assert_true(log_capture_has(&f->lg, "msg=\"cache dumper: dump of the cache and the scheduling queue\" nodes=1 pods=2"));
    assert_true(log_capture_has(&f->lg, "msg=\"cache dumper: node\" node=n1 allocatable=\"cpu=4000m memory=0 pods=110\" "
                               "requested=\"cpu=200m memory=0 pods=2\" npods=2 pods=default/a,default/x(assumed)"));
    assert_true(log_capture_has(&f->lg, "msg=\"cache dumper: pending pods\" queue=active npods=1 pods=default/b"));
    assert_true(log_capture_has(&f->lg, "msg=\"cache dumper: pending pods\" queue=backoff npods=0 pods=\"\""));
    ms_queue_free(q);
    ms_cache_free(c);
    ms_node_unref(n1);
    ms_pod_unref(bound);
    ms_pod_unref(assumed);
    ms_pod_unref(pending);
}

int main(void) {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_compare_logs_differences), T(test_compare_in_step), T(test_list_fails), T(test_dump),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
