/* Scheduler extenders: the `extenders` configuration (fields, upstream's
 * validation messages, unknown-field warnings), the wire format (requests
 * as Go marshals them, answers read case-insensitively), score scaling, and
 * whole scheduling cycles against an extender served by this test on
 * 127.0.0.1 (fake_http.h): filter with its reasons in the FitError,
 * prioritize, bind, ignorable and non-ignorable failures, httpTimeout,
 * nodeCacheCapable, managedResources, keep-alive, and the preempt call. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "fake_http.h"
#include "backend/cache.h"
#include "backend/queue.h"
#include "client/http_endpoint.h"
#include "moonsched/config.h"
#include "moonsched/decode.h"
#include "moonsched/scheduler.h"
#include "scheduler/extender.h"
#include "scheduler/extender_answers.h"

/* ---- configuration --------------------------------------------------- */

typedef struct warnings {
    int n;
    char msg[8][400];
} warnings;

static void on_warn(void *ctx, const char *msg) {
    warnings *w = ctx;
    if (w->n < 8) snprintf(w->msg[w->n], sizeof w->msg[0], "%s", msg);
    w->n++;
}

static ms_rc parse(const char *json, ms_extender_config **c, uint32_t *n, warnings *w, ms_error *err) {
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    ms_rc rc = ms_extender_configs_parse(j, c, n, w ? on_warn : NULL, w, "sched.yaml", err);
    cJSON_Delete(j);
    return rc;
}

static void test_config_fields(void **state) {
    (void)state;
    /* "hello" and "key" in base64 */
    const char *json =
        "[{\"urlPrefix\": \"https://ext.example:8443/scheduler\", \"filterVerb\": \"filter\","
        "  \"preemptVerb\": \"preempt\", \"prioritizeVerb\": \"prioritize\", \"weight\": 5,"
        "  \"bindVerb\": \"bind\", \"enableHTTPS\": true,"
        "  \"tlsConfig\": {\"insecure\": false, \"serverName\": \"ext.internal\", \"certFile\": \"/c.pem\","
        "                \"keyFile\": \"/k.pem\", \"caFile\": \"/ca.pem\", \"certData\": \"aGVsbG8=\","
        "                \"keyData\": \"a2V5\", \"caData\": null},"
        "  \"httpTimeout\": \"1m30s\", \"nodeCacheCapable\": true,"
        "  \"managedResources\": [{\"name\": \"example.com/gpu\", \"ignoredByScheduler\": true},"
        "                         {\"name\": \"example.com/fpga\"}],"
        "  \"ignorable\": true},"
        " {\"urlPrefix\": \"http://127.0.0.1:8888/\"}]";
    ms_extender_config *c;
    uint32_t n;
    warnings w = {0};
    ms_error err;
    assert_int_equal(parse(json, &c, &n, &w, &err), MS_OK);
    assert_int_equal(w.n, 0);
    assert_int_equal(n, 2);
    assert_string_equal(c[0].url_prefix, "https://ext.example:8443/scheduler");
    assert_string_equal(c[0].filter_verb, "filter");
    assert_string_equal(c[0].preempt_verb, "preempt");
    assert_string_equal(c[0].prioritize_verb, "prioritize");
    assert_string_equal(c[0].bind_verb, "bind");
    assert_int_equal(c[0].weight, 5);
    assert_true(c[0].enable_https);
    assert_true(c[0].has_tls);
    assert_false(c[0].tls.insecure);
    assert_string_equal(c[0].tls.server_name, "ext.internal");
    assert_string_equal(c[0].tls.cert_file, "/c.pem");
    assert_string_equal(c[0].tls.key_file, "/k.pem");
    assert_string_equal(c[0].tls.ca_file, "/ca.pem");
    assert_int_equal(c[0].tls.cert_data_len, 5);
    assert_memory_equal(c[0].tls.cert_data, "hello", 5);
    assert_int_equal(c[0].tls.key_data_len, 3);
    assert_memory_equal(c[0].tls.key_data, "key", 3);
    assert_null(c[0].tls.ca_data);
    assert_true(c[0].http_timeout == 90);
    assert_true(ms_extender_timeout(&c[0]) == 90);
    assert_true(c[0].node_cache_capable);
    assert_int_equal(c[0].nmanaged, 2);
    assert_string_equal(c[0].managed[0].name, "example.com/gpu");
    assert_true(c[0].managed[0].ignored_by_scheduler);
    assert_string_equal(c[0].managed[1].name, "example.com/fpga");
    assert_false(c[0].managed[1].ignored_by_scheduler);
    assert_true(c[0].ignorable);
    /* defaults: no verbs, upstream's 5s timeout */
    assert_string_equal(c[1].filter_verb, "");
    assert_string_equal(c[1].bind_verb, "");
    assert_int_equal(c[1].weight, 0);
    assert_false(c[1].has_tls);
    assert_true(c[1].http_timeout == 0);
    assert_true(ms_extender_timeout(&c[1]) == MS_EXTENDER_DEFAULT_TIMEOUT);
    assert_true(MS_EXTENDER_DEFAULT_TIMEOUT == 5.0);
    ms_extender_configs_free(c, n);

    /* none */
    assert_int_equal(parse("[]", &c, &n, NULL, &err), MS_OK);
    assert_int_equal(n, 0);
    assert_null(c);
    assert_int_equal(ms_extender_configs_parse(NULL, &c, &n, NULL, NULL, NULL, &err), MS_OK);
    assert_int_equal(n, 0);
}

static void test_config_errors(void **state) {
    (void)state;
    static const struct {
        const char *json;
        const char *msg;
    } cases[] = {
        {"[{\"urlPrefix\": \"http://a\", \"prioritizeVerb\": \"p\"}]",
         "extenders[0].weight: Invalid value: 0: must have a positive weight applied to it"},
        {"[{\"urlPrefix\": \"http://a\"}, {\"urlPrefix\": \"http://b\", \"prioritizeVerb\": \"p\", \"weight\": -3}]",
         "extenders[1].weight: Invalid value: -3: must have a positive weight applied to it"},
        {"[{\"urlPrefix\": \"http://a\", \"bindVerb\": \"bind\"}, {\"urlPrefix\": \"http://b\", \"bindVerb\": \"b\"}]",
         "extenders: Invalid value: \"found 2 extenders implementing bind\": only one extender can "
         "implement bind"},
        {"[{\"urlPrefix\": \"http://a\", \"managedResources\": [{\"name\": \"example.com/foo\"}]},"
         " {\"urlPrefix\": \"http://b\", \"managedResources\": [{\"name\": \"example.com/foo\"}]}]",
         "extenders[1].managedResources[0].name: Invalid value: \"example.com/foo\": duplicate extender "
         "managed resource name"},
        {"[{\"urlPrefix\": \"http://a\", \"managedResources\": [{\"name\": \"example.com/a\"},"
         " {\"name\": \"example.com/a\"}]}]",
         "extenders[0].managedResources[1].name: Invalid value: \"example.com/a\": duplicate extender "
         "managed resource name"},
        {"[{\"urlPrefix\": \"http://a\", \"managedResources\": [{\"name\": \"foo\"}]}]",
         "extenders[0].managedResources[0].name: Invalid value: \"foo\": foo is an invalid extended "
         "resource name"},
        {"[{\"urlPrefix\": \"http://a\", \"managedResources\": [{\"name\": \"kubernetes.io/foo\"}]}]",
         "extenders[0].managedResources[0].name: Invalid value: \"kubernetes.io/foo\": kubernetes.io/foo is "
         "an invalid extended resource name"},
        {"[{\"urlPrefix\": \"http://a\", \"managedResources\": [{\"name\": \"example.com/\"}]}]",
         "extenders[0].managedResources[0].name: Invalid value: \"example.com/\": name part must be "
         "non-empty"},
        {"[{\"urlPrefix\": \"http://a\", \"managedResources\": [{\"name\": \"Example.com/x\"}]}]",
         "extenders[0].managedResources[0].name: Invalid value: \"Example.com/x\": prefix part a lowercase "
         "RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
         "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
        {"[{\"urlPrefix\": \"http://a\", \"httpTimeout\": 5}]",
         "extenders[0].httpTimeout: must be a duration such as \"15s\" or \"1m30s\""},
        {"[{\"urlPrefix\": \"http://a\", \"httpTimeout\": \"5 s\"}]",
         "extenders[0].httpTimeout: Invalid value: \"5 s\": must be a duration such as \"15s\" or \"1m30s\""},
        {"[{\"urlPrefix\": \"http://a\", \"httpTimeout\": \"-1s\"}]",
         "extenders[0].httpTimeout: Invalid value: -1s: must not be negative"},
        {"[{\"urlPrefix\": \"http://a\", \"weight\": \"1\"}]", "extenders[0].weight: must be an integer"},
        {"[{\"urlPrefix\": \"http://a\", \"weight\": 1.5}]",
         "extenders[0].weight: Invalid value: 1.5: must be an integer"},
        {"[{\"filterVerb\": \"filter\"}]", "extenders[0].urlPrefix: Required value"},
        {"[{\"urlPrefix\": 3}]", "extenders[0].urlPrefix: must be a string"},
        {"[{\"urlPrefix\": \"http://a\", \"ignorable\": \"yes\"}]",
         "extenders[0].ignorable: must be true or false"},
        {"[{\"urlPrefix\": \"http://a\", \"tlsConfig\": {\"caData\": \"a$b=\"}}]",
         "extenders[0].tlsConfig.caData: illegal base64 data at input byte 1"},
        {"[{\"urlPrefix\": \"http://a\", \"tlsConfig\": []}]", "extenders[0].tlsConfig: must be an object"},
        {"[{\"urlPrefix\": \"http://a\", \"managedResources\": {}}]",
         "extenders[0].managedResources: must be a list"},
        {"[{\"urlPrefix\": \"http://a\", \"managedResources\": [{\"name\": \"example.com/a\","
         " \"ignoredByScheduler\": 1}]}]",
         "extenders[0].managedResources[0].ignoredByScheduler: must be true or false"},
        {"[\"http://a\"]", "extenders[0]: must be an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_extender_config *c = (ms_extender_config *)1;
        uint32_t n = 7;
        ms_error err = {0};
        ms_rc rc = parse(cases[i].json, &c, &n, NULL, &err);
        if (rc != MS_EINVAL || strcmp(err.msg, cases[i].msg) != 0)
            fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, err.msg, cases[i].msg);
        assert_null(c);
        assert_int_equal(n, 0);
    }
}

static void test_config_warnings(void **state) {
    (void)state;
    ms_extender_config *c;
    uint32_t n;
    warnings w = {0};
    ms_error err;
    assert_int_equal(parse("[{\"urlPrefix\": \"http://a\", \"filterverb\": \"x\","
                           " \"tlsConfig\": {\"bogus\": 1}, \"managedResources\": [{\"name\": \"a.io/b\", \"x\": 1}]},"
                           " {\"urlPrefix\": \"http://b\", \"enableHTTPS\": true}]",
                           &c, &n, &w, &err),
                     MS_OK);
    assert_int_equal(w.n, 4);
    assert_string_equal(w.msg[0], "sched.yaml: unknown field \"extenders[0].filterverb\"");
    assert_string_equal(w.msg[1], "sched.yaml: unknown field \"extenders[0].tlsConfig.bogus\"");
    assert_string_equal(w.msg[2], "sched.yaml: unknown field \"extenders[0].managedResources[0].x\"");
    assert_non_null(strstr(w.msg[3], "extenders[1]: enableHTTPS is set but urlPrefix \"http://b\" is plain HTTP"));
    /* the misspelt verb is not read: configuration names are exact */
    assert_string_equal(c[0].filter_verb, "");
    ms_extender_configs_free(c, n);
}

/* The configuration loader validates extenders and reports their unknown
 * fields with the file's name. */
static void test_config_through_loader(void **state) {
    (void)state;
    const char *yaml_ok =
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "extenders:\n"
        "- urlPrefix: \"http://127.0.0.1:12346/scheduler\"\n"
        "  filterVerb: \"filter\"\n"
        "  prioritizeVerb: \"prioritize\"\n"
        "  weight: 1\n"
        "  enableHTTPS: false\n"
        "  nodeCacheCapable: false\n"
        "  httpTimeout: 30s\n"
        "  managedResources:\n"
        "  - name: example.com/foo\n"
        "    ignoredByScheduler: true\n"
        "  ignorable: false\n"
        "  urlprefix: typo\n";
    char path[] = "/tmp/test_extender_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, yaml_ok, strlen(yaml_ok)), (ssize_t)strlen(yaml_ok));
    close(fd);
    ms_config cfg;
    warnings w = {0};
    ms_error err;
    /* field names match exactly, as upstream's case-sensitive strict decoding */
    assert_int_equal(ms_config_load_file(&cfg, path, on_warn, &w, &err), MS_EINVAL);
    assert_int_equal(w.n, 0);
    char want[200];
    snprintf(want, sizeof want, "%s: strict decoding error: unknown field \"extenders[0].urlprefix\"", path);
    assert_string_equal(err.msg, want);
    fd = open(path, O_WRONLY | O_TRUNC);
    size_t len = strlen(yaml_ok) - strlen("  urlprefix: typo\n");
    assert_int_equal(write(fd, yaml_ok, len), (ssize_t)len);
    close(fd);
    assert_int_equal(ms_config_load_file(&cfg, path, on_warn, &w, &err), MS_OK);
    assert_int_equal(w.n, 0);
    assert_int_equal(cJSON_GetArraySize(cfg.extenders), 1);
    ms_config_free(&cfg);

    const char *yaml_bad = "apiVersion: kubescheduler.config.k8s.io/v1\n"
                           "kind: KubeSchedulerConfiguration\n"
                           "extenders:\n"
                           "- urlPrefix: http://a\n"
                           "  prioritizeVerb: prioritize\n";
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, yaml_bad, strlen(yaml_bad)), (ssize_t)strlen(yaml_bad));
    close(fd);
    assert_int_equal(ms_config_load_file(&cfg, path, NULL, NULL, &err), MS_EINVAL);
    snprintf(want, sizeof want, "%s: extenders[0].weight: Invalid value: 0: must have a positive weight applied to it",
             path);
    assert_string_equal(err.msg, want);
    unlink(path);
}

/* ---- Go's field matching ---------------------------------------------- */

static void test_json_field_folding(void **state) {
    (void)state;
    cJSON *o = cJSON_Parse("{\"nodenames\": 1, \"FAILEDNODES\": 2, \"Error\": 3, \"error\": 4,"
                           " \"\xe2\x84\xaa" "ey\": 5, \"\xc5\xbf" "core\": 6, \"Host\": 7, \"Hostx\": 8}");
    assert_non_null(o);
    static const struct {
        const char *name;
        int want;                  /* 0: absent */
    } cases[] = {
        {"NodeNames", 1}, {"FailedNodes", 2}, {"Error", 4}, /* the last of equal keys */
        {"Key", 5},       {"Score", 6},       {"host", 7},  {"Hos", 0},
        {"Nodes", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cJSON *f = ms_extender_json_field(o, cases[i].name);
        if (cases[i].want == 0) {
            assert_null(f);
        } else {
            assert_non_null(f);
            assert_int_equal(f->valueint, cases[i].want);
        }
    }
    cJSON_Delete(o);
}

/* ---- an extender served by the test ----------------------------------- */

typedef struct route {
    char path[64];
    int status;
    char body[2048];
    double delay;
    int hits;
} route;

typedef struct ext_server {
    pthread_mutex_t mu;
    route routes[8];
    int nroutes;
    fake_http *http;
} ext_server;

static bool ext_handler(fake_http *srv, int fd, const fh_request *r, void *ctx) {
    (void)srv;
    ext_server *s = ctx;
    char body[2048] = "";
    int status = 404;
    double delay = 0;
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < s->nroutes; i++)
        if (strcmp(s->routes[i].path, r->path) == 0) {
            s->routes[i].hits++;
            snprintf(body, sizeof body, "%s", s->routes[i].body);
            status = s->routes[i].status;
            delay = s->routes[i].delay;
        }
    pthread_mutex_unlock(&s->mu);
    if (delay > 0) fh_sleep(delay);
    return fh_reply(fd, status, NULL, body);
}

static void serve(ext_server *s, const char *path, int status, const char *body, double delay) {
    pthread_mutex_lock(&s->mu);
    route *r = NULL;
    for (int i = 0; i < s->nroutes; i++)
        if (strcmp(s->routes[i].path, path) == 0) r = &s->routes[i];
    if (!r) r = &s->routes[s->nroutes++];
    snprintf(r->path, sizeof r->path, "%s", path);
    r->status = status;
    snprintf(r->body, sizeof r->body, "%s", body);
    r->delay = delay;
    pthread_mutex_unlock(&s->mu);
}

static int hits(ext_server *s, const char *path) {
    int n = 0;
    pthread_mutex_lock(&s->mu);
    for (int i = 0; i < s->nroutes; i++)
        if (strcmp(s->routes[i].path, path) == 0) n = s->routes[i].hits;
    pthread_mutex_unlock(&s->mu);
    return n;
}

static ext_server *server_start(void) {
    ext_server *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    s->http = fh_start(ext_handler, s);
    assert_non_null(s->http);
    return s;
}

static void server_stop(ext_server *s) {
    fh_stop(s->http);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* The body of the last request to `path`, parsed. */
static cJSON *last_request(ext_server *s, const char *path) {
    fake_http *h = s->http;
    cJSON *j = NULL;
    pthread_mutex_lock(&h->mu);
    for (int i = h->nreqs - 1; i >= 0 && !j; i--)
        if (strcmp(h->reqs[i].path, path) == 0) j = cJSON_Parse(h->reqs[i].body);
    pthread_mutex_unlock(&h->mu);
    assert_non_null(j);
    return j;
}

/* A port nobody listens on. */
static int closed_port(void) {
    ext_server *s = server_start();
    int port = s->http->port;
    server_stop(s);
    return port;
}

/* ---- a scheduler with extenders --------------------------------------- */

#define MAX_PODS 8

typedef struct outcome {
    char pod[64];
    char node[64];                 /* "" when not placed */
    char message[1024];
    uint32_t nscores;
    char names[MS_MAX_PLUGINS][96];
    int64_t scores[MS_MAX_PLUGINS];
    bool bind_failed;
} outcome;

/* The client's endpoint, as the commands give it to the extenders. */
typedef struct http_env {
    ms_http_endpoint *ep;
    ms_http_caller c;
} http_env;

static void http_open(http_env *h) {
    ms_error err;
    if (ms_http_endpoint_new(&h->ep, &err) != MS_OK) fail_msg("%s", err.msg);
    h->c = ms_http_endpoint_caller(h->ep);
}

static void http_close(http_env *h) { ms_http_endpoint_free(h->ep); }

typedef struct harness {
    http_env http;
    ms_interner *in;
    ms_config cfg;
    ms_scheduler *s;
    int binder_calls;
    outcome out[MAX_PODS];
    int nout;
    double now;
} harness;

static outcome *outcome_for(harness *h, const ms_pod *pod) {
    const char *name = ms_str_get(h->in, pod->meta.name);
    for (int i = 0; i < h->nout; i++)
        if (strcmp(h->out[i].pod, name) == 0) return &h->out[i];
    assert_true(h->nout < MAX_PODS);
    outcome *o = &h->out[h->nout++];
    memset(o, 0, sizeof *o);
    snprintf(o->pod, sizeof o->pod, "%s", name);
    return o;
}

static outcome *get(harness *h, const char *pod) {
    for (int i = 0; i < h->nout; i++)
        if (strcmp(h->out[i].pod, pod) == 0) return &h->out[i];
    fail_msg("no outcome for %s", pod);
    return &h->out[0];
}

static void on_scheduled(void *ctx, const ms_pod *pod, ms_str node, const ms_score_report *why) {
    harness *h = ctx;
    outcome *o = outcome_for(h, pod);
    snprintf(o->node, sizeof o->node, "%s", ms_str_get(h->in, node));
    o->message[0] = '\0';
    o->nscores = why->nplugins;
    for (uint32_t k = 0; k < why->nplugins; k++) {
        snprintf(o->names[k], sizeof o->names[k], "%s", why->names[k]);
        o->scores[k] = why->scores[k];
    }
}

static void on_unschedulable(void *ctx, const ms_pod *pod, const char *message, uint32_t attempts) {
    (void)attempts;
    harness *h = ctx;
    outcome *o = outcome_for(h, pod);
    o->node[0] = '\0';
    snprintf(o->message, sizeof o->message, "%s", message);
}

static void on_bind_failed(void *ctx, const ms_pod *pod, ms_str node, const char *message) {
    (void)node;
    on_unschedulable(ctx, pod, message, 0);
    outcome_for(ctx, pod)->bind_failed = true;
}

static ms_rc test_bind(void *ctx, const ms_pod *pod, ms_str node) {
    (void)node;
    harness *h = ctx;
    h->binder_calls++;
    ms_scheduler_bind_done(h->s, pod, true, false, NULL, h->now);
    return MS_OK;
}

/* A scheduler with the default profile and the given `extenders` list
 * (JSON text). */
static void harness_init(harness *h, const char *extenders_json) {
    memset(h, 0, sizeof *h);
    http_open(&h->http);
    h->in = ms_interner_new();
    char cfg[4096];
    snprintf(cfg, sizeof cfg,
             "{\"apiVersion\": \"kubescheduler.config.k8s.io/v1\", \"kind\": \"KubeSchedulerConfiguration\","
             " \"extenders\": %s}",
             extenders_json);
    cJSON *root = cJSON_Parse(cfg);
    assert_non_null(root);
    ms_error err;
    ms_rc rc = ms_config_load_json(&h->cfg, root, "test", NULL, NULL, &err);
    cJSON_Delete(root);
    if (rc != MS_OK) fail_msg("config: %s", err.msg);
    ms_scheduler_options o = {
        .config = &h->cfg,
        .in = h->in,
        .binder = {h, test_bind},
        .reporter = {h, on_scheduled, on_unschedulable, on_bind_failed, NULL},
        .seed = 1,
        .http = &h->http.c,
    };
    if (ms_scheduler_new(&o, &h->s, &err) != MS_OK) fail_msg("scheduler: %s", err.msg);
}

static void harness_free(harness *h) {
    ms_scheduler_free(h->s);
    ms_config_free(&h->cfg);
    ms_interner_free(h->in);
    http_close(&h->http);
}

static void add_node_json(harness *h, const char *json) {
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    ms_node *n = NULL;
    ms_error err;
    if (ms_node_decode(ms_scheduler_decoder(h->s), j, &n, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    ms_scheduler_node_add(h->s, n, h->now);
    ms_node_unref(n);
}

/* Node `name` with 4 cpu, an optional extra label and taint. */
static void add_node(harness *h, const char *name, const char *taint_key) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"metadata\": {\"name\": \"%s\", \"labels\": {\"kubernetes.io/hostname\": \"%s\"},"
             "  \"annotations\": {\"note\": \"from %s\"}},"
             " \"spec\": {\"taints\": [%s%s%s]},"
             " \"status\": {\"allocatable\": {\"cpu\": \"4\", \"memory\": \"8Gi\", \"pods\": \"110\"}}}",
             name, name, name, taint_key ? "{\"key\": \"" : "", taint_key ? taint_key : "",
             taint_key ? "\", \"value\": \"gpu\", \"effect\": \"NoSchedule\"}" : "");
    add_node_json(h, json);
}

/* Pending pod `name` requesting 100m cpu and, when gpu, example.com/gpu. */
static void add_pod(harness *h, const char *name, bool gpu) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"metadata\": {\"name\": \"%s\", \"namespace\": \"default\", \"uid\": \"uid-%s\"},"
             " \"spec\": {\"containers\": [{\"name\": \"c\", \"image\": \"busybox\","
             "   \"env\": [{\"name\": \"WHO\", \"value\": \"<%s>\"}],"
             "   \"resources\": {\"requests\": {\"cpu\": \"100m\"%s}, \"limits\": {%s}}}]}}",
             name, name, name, gpu ? ", \"example.com/gpu\": \"1\"" : "",
             gpu ? "\"example.com/gpu\": \"1\"" : "");
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    ms_pod *p = NULL;
    ms_error err;
    if (ms_pod_decode(ms_scheduler_decoder(h->s), j, &p, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    ms_scheduler_pod_add(h->s, p, h->now);
    ms_pod_unref(p);
}

static void run_all(harness *h) {
    while (ms_scheduler_schedule_one(h->s, h->now)) {
    }
}

static bool has_string(const cJSON *arr, const char *s) {
    const cJSON *c;
    cJSON_ArrayForEach(c, arr) if (cJSON_IsString(c) && strcmp(c->valuestring, s) == 0) return true;
    return false;
}

static double mono_now(void) { return fh_now(); }

/* Filter: the extender sees the nodes the plugins left, its reasons join
 * the FitError; the request is upstream's ExtenderArgs with full objects. */
static void test_filter_reasons_in_fit_error(void **state) {
    (void)state;
    ext_server *srv = server_start();
    /* field names in odd case, as Go's decoder accepts them */
    serve(srv, "/ext/filter", 200,
          "{\"nodes\": {\"ITEMS\": []}, \"failednodes\": {\"n1\": \"no GPU left\", \"n2\": \"no GPU left\"},"
          " \"Error\": \"\"}",
          0);
    char ext[512];
    snprintf(ext, sizeof ext, "[{\"urlPrefix\": \"%s/ext/\", \"filterVerb\": \"filter\"}]", srv->http->url);
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_node(&h, "n2", NULL);
    add_node(&h, "n3", "dedicated");
    add_pod(&h, "p", false);
    run_all(&h);
    outcome *o = get(&h, "p");
    assert_string_equal(o->node, "");
    const char *want = "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 no GPU left.";
    if (strncmp(o->message, want, strlen(want)) != 0) fail_msg("got: %s", o->message);
    assert_int_equal(hits(srv, "/ext/filter"), 1);

    cJSON *req = last_request(srv, "/ext/filter");
    /* the Pod as decoded, fields the scheduler never reads included */
    const cJSON *env = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
                                                                       cJSON_GetObjectItem(req, "Pod"), "spec"),
                                                                   "containers"),
                                               0),
                            "env"),
        0);
    assert_string_equal(cJSON_GetObjectItem(env, "value")->valuestring, "<p>");
    const cJSON *nodes = cJSON_GetObjectItem(req, "Nodes");
    assert_true(cJSON_IsObject(cJSON_GetObjectItem(nodes, "metadata")));
    const cJSON *items = cJSON_GetObjectItem(nodes, "items");
    assert_int_equal(cJSON_GetArraySize(items), 2);
    const cJSON *it;
    int seen = 0;
    cJSON_ArrayForEach(it, items) {
        const cJSON *md = cJSON_GetObjectItem(it, "metadata");
        const char *nm = cJSON_GetObjectItem(md, "name")->valuestring;
        char note[32];
        snprintf(note, sizeof note, "from %s", nm);
        assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(md, "annotations"), "note")->valuestring, note);
        seen |= strcmp(nm, "n1") == 0 ? 1 : strcmp(nm, "n2") == 0 ? 2 : 4;
    }
    assert_int_equal(seen, 3);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(req, "NodeNames")));
    cJSON_Delete(req);
    /* upstream's request headers */
    char v[128];
    pthread_mutex_lock(&srv->http->mu);
    assert_string_equal(srv->http->reqs[0].method, "POST");
    assert_string_equal(fh_header(&srv->http->reqs[0], "Content-Type", v, sizeof v), "application/json");
    assert_null(fh_header(&srv->http->reqs[0], "Expect", v, sizeof v));
    pthread_mutex_unlock(&srv->http->mu);
    harness_free(&h);
    server_stop(srv);
}

/* The extender keeps a node: the pod goes there; FailedAndUnresolvable
 * wins over Failed for the same node. */
static void test_filter_keeps_subset(void **state) {
    (void)state;
    ext_server *srv = server_start();
    serve(srv, "/filter", 200,
          "{\"Nodes\": {\"items\": [{\"metadata\": {\"name\": \"n2\"}}]},"
          " \"FailedNodes\": {\"n1\": \"busy\", \"n3\": \"busy\"},"
          " \"FailedAndUnresolvableNodes\": {\"n3\": \"wrong rack\"}}",
          0);
    char ext[512];
    snprintf(ext, sizeof ext, "[{\"urlPrefix\": \"%s\", \"filterVerb\": \"filter\"}]", srv->http->url);
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_node(&h, "n2", NULL);
    add_node(&h, "n3", NULL);
    add_pod(&h, "p", false);
    run_all(&h);
    assert_string_equal(get(&h, "p")->node, "n2");
    assert_int_equal(h.binder_calls, 1);

    /* now n2 is refused too: the histogram has both kinds of reasons */
    serve(srv, "/filter", 200,
          "{\"Nodes\": null, \"FailedNodes\": {\"n1\": \"busy\", \"n2\": \"busy\", \"n3\": \"busy\"},"
          " \"FailedAndUnresolvableNodes\": {\"n3\": \"wrong rack\"}}",
          0);
    add_pod(&h, "q", false);
    run_all(&h);
    const char *want = "0/3 nodes are available: 1 wrong rack, 2 busy.";
    if (strncmp(get(&h, "q")->message, want, strlen(want)) != 0) fail_msg("got: %s", get(&h, "q")->message);
    harness_free(&h);
    server_stop(srv);
}

/* Answers the scheduler cannot use fail the cycle with upstream's text. */
static void test_filter_bad_answers(void **state) {
    (void)state;
    ext_server *srv = server_start();
    char ext[512];
    snprintf(ext, sizeof ext, "[{\"urlPrefix\": \"%s/\", \"filterVerb\": \"filter\"}]", srv->http->url);
    char code500[200];
    snprintf(code500, sizeof code500, "failed filter with extender at URL %s/filter, code 500", srv->http->url);
    char stranger[200];
    snprintf(stranger, sizeof stranger,
             "extender \"%s/\" claims a filtered node \"n9\\\"\\n\" which is not found in the input node list",
             srv->http->url);
    const struct {
        int status;
        const char *body;
        const char *msg;
    } cases[] = {
        {500, "{}", code500},
        {200, "{\"Error\": \"database down\"}", "database down"},
        {200, "{\"Nodes\": {\"items\": [{\"metadata\": {\"name\": \"n9\\\"\\n\"}}]}}", stranger},
        {200, "", "EOF"},
        {200, "{\"Error\": 3}",
         "json: cannot unmarshal number into Go struct field ExtenderFilterResult.Error of type string"},
        {200, "[]", "json: cannot unmarshal array into Go value of type v1.ExtenderFilterResult"},
        {200, "{\"FailedNodes\": {\"n1\": 1}}",
         "json: cannot unmarshal number into Go struct field ExtenderFilterResult.FailedNodes of type string"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        serve(srv, "/filter", cases[i].status, cases[i].body, 0);
        harness h;
        harness_init(&h, ext);
        add_node(&h, "n1", NULL);
        add_pod(&h, "p", false);
        ms_scheduler_schedule_one(h.s, 0);
        outcome *o = get(&h, "p");
        if (strcmp(o->message, cases[i].msg) != 0)
            fail_msg("case %zu\n got: %s\nwant: %s", i, o->message, cases[i].msg);
        assert_string_equal(o->node, "");
        harness_free(&h);
    }
    server_stop(srv);
}

/* Prioritize: 0..10 scores x weight x 10 join the totals and decide. */
static void test_prioritize_changes_placement(void **state) {
    (void)state;
    ext_server *srv = server_start();
    serve(srv, "/prioritize", 200,
          "[{\"Host\": \"n2\", \"Score\": 10}, {\"host\": \"n1\", \"score\": 1},"
          " {\"Host\": \"n1\", \"Score\": 1}, {\"Host\": \"elsewhere\", \"Score\": 10}]",
          0);
    char ext[512];
    snprintf(ext, sizeof ext, "[{\"urlPrefix\": \"%s\", \"prioritizeVerb\": \"prioritize\", \"weight\": 3}]",
             srv->http->url);
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_node(&h, "n2", NULL);
    add_node(&h, "n3", NULL);
    add_pod(&h, "p", false);
    run_all(&h);
    outcome *o = get(&h, "p");
    assert_string_equal(o->node, "n2");
    /* the report lists the extender after the plugins */
    assert_true(o->nscores >= 2);
    assert_string_equal(o->names[o->nscores - 1], srv->http->url);
    assert_int_equal(o->scores[o->nscores - 1], 300);
    assert_int_equal(hits(srv, "/prioritize"), 1);

    /* n1: two entries of 1 add up (20 x 3 = 60) and beat n3 */
    serve(srv, "/prioritize", 200, "[{\"Host\": \"n1\", \"Score\": 1}, {\"Host\": \"n1\", \"Score\": 1}]", 0);
    add_pod(&h, "q", false);
    run_all(&h);
    o = get(&h, "q");
    assert_string_equal(o->node, "n1");
    assert_int_equal(o->scores[o->nscores - 1], 60);

    /* a failing prioritizer is ignored (upstream): no score, still placed */
    serve(srv, "/prioritize", 200, "[{\"Host\": \"n3\", \"Score\": 5.5}]", 0);
    add_pod(&h, "r", false);
    run_all(&h);
    o = get(&h, "r");
    assert_string_not_equal(o->node, "");
    assert_int_equal(o->scores[o->nscores - 1], 0);
    /* one connection for every call */
    assert_int_equal(fh_nconns(srv->http), 1);
    harness_free(&h);
    server_stop(srv);
}

/* ms_extenders_prioritize directly: rows, scaling, failures counted. */
static void test_prioritize_scaling(void **state) {
    (void)state;
    ext_server *a = server_start(), *b = server_start();
    serve(a, "/p", 200, "[{\"Host\": \"n1\", \"Score\": 7}, {\"Host\": \"n2\", \"Score\": 0}]", 0.3);
    serve(b, "/p", 200, "[{\"Host\": \"n2\", \"Score\": 10}]", 0.3);
    char ext[600];
    snprintf(ext, sizeof ext,
             "[{\"urlPrefix\": \"%s\", \"prioritizeVerb\": \"p\", \"weight\": 1},"
             " {\"urlPrefix\": \"%s\", \"prioritizeVerb\": \"p\", \"weight\": 2, \"ignorable\": true},"
             " {\"urlPrefix\": \"http://127.0.0.1:%d\", \"prioritizeVerb\": \"p\", \"weight\": 5}]",
             a->http->url, b->http->url, closed_port());
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_node(&h, "n2", NULL);
    add_pod(&h, "p", false);
    /* drive the call on the scheduler's own snapshot-free view: build the
     * extenders again from the configuration */
    ms_extender_config *ec;
    uint32_t n;
    ms_error err;
    assert_int_equal(ms_extender_configs_parse(h.cfg.extenders, &ec, &n, NULL, NULL, NULL, &err), MS_OK);
    ms_extenders *e;
    assert_int_equal(ms_extenders_new(ec, n, h.in, &h.http.c, &e, &err), MS_OK);
    ms_extender_configs_free(ec, n);
    /* call order: the ignorable one last */
    assert_int_equal(ms_extenders_nprioritizers(e), 3);
    assert_string_equal(ms_extenders_prioritizer_name(e, 0), a->http->url);
    assert_string_equal(ms_extenders_prioritizer_name(e, 2), b->http->url);

    ms_node_info *n1 = ms_node_info_new(ms_intern_cstr(h.in, "n1"));
    ms_node_info *n2 = ms_node_info_new(ms_intern_cstr(h.in, "n2"));
    ms_node_info *nodes[2] = {n1, n2};
    ms_pod *pod = ms_pod_alloc();
    pod->meta.name = ms_intern_cstr(h.in, "p");
    pod->meta.namespace_ = ms_intern_cstr(h.in, "default");
    pod->scheduler_name = ms_intern_cstr(h.in, "default-scheduler");
    int64_t scores[6];
    uint32_t failed = 9;
    double t0 = mono_now();
    ms_extenders_prioritize(e, pod, nodes, 2, scores, &failed);
    double took = mono_now() - t0;
    assert_int_equal(failed, 1);
    assert_int_equal(scores[0], 70);   /* 7 x 1 x 10 */
    assert_int_equal(scores[1], 0);
    assert_int_equal(scores[2], 0);    /* the unreachable one */
    assert_int_equal(scores[3], 0);
    assert_int_equal(scores[4], 0);
    assert_int_equal(scores[5], 200);  /* 10 x 2 x 10 */
    /* both 0.3 s answers were awaited together */
    if (took > 0.55) fail_msg("prioritize took %.3f s: not concurrent", took);
    /* a pod decoded without keep_raw is sent with its identity fields */
    cJSON *req = last_request(a, "/p");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(req, "Pod"), "metadata"), "name")
                            ->valuestring,
                        "p");
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(req, "Nodes"), "items"), 1),
                            "metadata")
            ->child->valuestring,
        "n2");
    cJSON_Delete(req);
    ms_pod_unref(pod);
    ms_node_info_free(n1);
    ms_node_info_free(n2);
    ms_extenders_free(e);
    harness_free(&h);
    server_stop(a);
    server_stop(b);
}

/* Bind: the extender binds, the Bind plugins do not run. */
static void test_bind_verb(void **state) {
    (void)state;
    ext_server *srv = server_start();
    serve(srv, "/bind", 200, "{\"Error\": \"\"}", 0);
    char ext[512];
    snprintf(ext, sizeof ext, "[{\"urlPrefix\": \"%s\", \"bindVerb\": \"bind\"}]", srv->http->url);
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_pod(&h, "p", false);
    run_all(&h);
    assert_string_equal(get(&h, "p")->node, "n1");
    assert_int_equal(h.binder_calls, 0);
    assert_int_equal(hits(srv, "/bind"), 1);
    assert_int_equal(ms_scheduler_binding_count(h.s), 0);
    cJSON *req = last_request(srv, "/bind");
    char *text = cJSON_PrintUnformatted(req);
    assert_string_equal(text, "{\"PodName\":\"p\",\"PodNamespace\":\"default\",\"PodUID\":\"uid-p\",\"Node\":\"n1\"}");
    free(text);
    cJSON_Delete(req);

    /* a refused bind: back to the queue with the reason */
    serve(srv, "/bind", 200, "{\"error\": \"quota exceeded\"}", 0);
    add_pod(&h, "q", false);
    run_all(&h);
    outcome *o = get(&h, "q");
    assert_true(o->bind_failed);
    assert_string_equal(o->message, "binding rejected: quota exceeded");
    assert_int_equal(ms_scheduler_binding_count(h.s), 0);
    harness_free(&h);
    server_stop(srv);
}

/* An ignorable binder that fails hands the pod to the Bind plugins. */
static void test_bind_ignorable_falls_back(void **state) {
    (void)state;
    char ext[512];
    snprintf(ext, sizeof ext,
             "[{\"urlPrefix\": \"http://127.0.0.1:%d\", \"bindVerb\": \"bind\", \"ignorable\": true}]",
             closed_port());
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_pod(&h, "p", false);
    run_all(&h);
    assert_string_equal(get(&h, "p")->node, "n1");
    assert_int_equal(h.binder_calls, 1);
    harness_free(&h);
}

/* An unreachable extender: skipped when ignorable, else the pod fails with
 * the transport error. */
static void test_extender_down(void **state) {
    (void)state;
    int port = closed_port();
    char ext[512];
    snprintf(ext, sizeof ext,
             "[{\"urlPrefix\": \"http://127.0.0.1:%d\", \"filterVerb\": \"filter\", \"prioritizeVerb\": \"p\","
             "  \"weight\": 1, \"ignorable\": true}]",
             port);
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_node(&h, "n2", NULL);
    add_pod(&h, "p", false);
    run_all(&h);
    assert_string_not_equal(get(&h, "p")->node, "");
    harness_free(&h);

    snprintf(ext, sizeof ext, "[{\"urlPrefix\": \"http://127.0.0.1:%d\", \"filterVerb\": \"filter\"}]", port);
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_pod(&h, "p", false);
    run_all(&h);
    outcome *o = get(&h, "p");
    assert_string_equal(o->node, "");
    char want[128];
    snprintf(want, sizeof want, "Post \"http://127.0.0.1:%d/filter\": ", port);
    if (strncmp(o->message, want, strlen(want)) != 0) fail_msg("got: %s", o->message);
    /* an error, not a rejection: the pod waits out its backoff */
    assert_int_equal(ms_queue_len_backoff(ms_scheduler_queue(h.s)), 1);
    harness_free(&h);
}

/* httpTimeout bounds each call. */
static void test_http_timeout(void **state) {
    (void)state;
    ext_server *srv = server_start();
    serve(srv, "/filter", 200, "{\"Nodes\": {\"items\": [{\"metadata\": {\"name\": \"n1\"}}]}}", 1.5);
    char ext[512];
    snprintf(ext, sizeof ext, "[{\"urlPrefix\": \"%s\", \"filterVerb\": \"filter\", \"httpTimeout\": \"200ms\"}]",
             srv->http->url);
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_pod(&h, "p", false);
    double t0 = mono_now();
    run_all(&h);
    double took = mono_now() - t0;
    outcome *o = get(&h, "p");
    assert_string_equal(o->node, "");
    char want[128];
    snprintf(want, sizeof want, "Post \"%s/filter\": ", srv->http->url);
    if (strncmp(o->message, want, strlen(want)) != 0) fail_msg("got: %s", o->message);
    assert_non_null(strstr(o->message, "timed out"));
    if (took < 0.15 || took > 1.4) fail_msg("the call took %.3f s (the server answers after 1.5 s)", took);
    harness_free(&h);
    server_stop(srv);
}

/* nodeCacheCapable: names go out, names come back. */
static void test_node_cache_capable(void **state) {
    (void)state;
    ext_server *srv = server_start();
    serve(srv, "/filter", 200, "{\"NodeNames\": [\"n2\", \"n2\"], \"FailedNodes\": {\"n1\": \"x\", \"n3\": \"x\"}}", 0);
    char ext[512];
    snprintf(ext, sizeof ext, "[{\"urlPrefix\": \"%s\", \"filterVerb\": \"filter\", \"nodeCacheCapable\": true}]",
             srv->http->url);
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_node(&h, "n2", NULL);
    add_node(&h, "n3", NULL);
    add_pod(&h, "p", false);
    run_all(&h);
    assert_string_equal(get(&h, "p")->node, "n2");
    cJSON *req = last_request(srv, "/filter");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(req, "Nodes")));
    const cJSON *names = cJSON_GetObjectItem(req, "NodeNames");
    assert_int_equal(cJSON_GetArraySize(names), 3);
    assert_true(has_string(names, "n1") && has_string(names, "n2") && has_string(names, "n3"));
    assert_true(cJSON_IsObject(cJSON_GetObjectItem(req, "Pod")));
    cJSON_Delete(req);
    harness_free(&h);
    server_stop(srv);
}

/* managedResources: only pods that ask for one reach the extender;
 * ignoredByScheduler takes the resource away from NodeResourcesFit. */
static void test_managed_resources(void **state) {
    (void)state;
    ext_server *srv = server_start();
    serve(srv, "/filter", 200, "{\"Nodes\": {\"items\": [{\"metadata\": {\"name\": \"n1\"}}]}}", 0);
    char ext[512];
    snprintf(ext, sizeof ext,
             "[{\"urlPrefix\": \"%s\", \"filterVerb\": \"filter\","
             "  \"managedResources\": [{\"name\": \"example.com/gpu\", \"ignoredByScheduler\": true}]}]",
             srv->http->url);
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_node(&h, "n2", NULL);
    add_pod(&h, "plain", false);
    run_all(&h);
    assert_string_not_equal(get(&h, "plain")->node, "");
    assert_int_equal(hits(srv, "/filter"), 0);
    /* the nodes have no example.com/gpu: only the extender judges it */
    add_pod(&h, "gpu", true);
    run_all(&h);
    assert_string_equal(get(&h, "gpu")->node, "n1");
    assert_int_equal(hits(srv, "/filter"), 1);
    harness_free(&h);

    /* without ignoredByScheduler NodeResourcesFit rejects every node and
     * the extender is not asked */
    snprintf(ext, sizeof ext,
             "[{\"urlPrefix\": \"%s\", \"filterVerb\": \"filter\","
             "  \"managedResources\": [{\"name\": \"example.com/gpu\"}]}]",
             srv->http->url);
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_pod(&h, "gpu", true);
    run_all(&h);
    const char *want = "0/1 nodes are available: 1 Insufficient example.com/gpu.";
    if (strncmp(get(&h, "gpu")->message, want, strlen(want)) != 0) fail_msg("got: %s", get(&h, "gpu")->message);
    assert_int_equal(hits(srv, "/filter"), 1);
    harness_free(&h);
    server_stop(srv);
}

/* Non-ignorable extenders are called before ignorable ones, in file order. */
static void test_call_order(void **state) {
    (void)state;
    ext_server *a = server_start(), *b = server_start();
    /* a (ignorable, first in the file) would keep n1; b keeps n2 only */
    serve(a, "/filter", 200, "{\"Nodes\": {\"items\": [{\"metadata\": {\"name\": \"n1\"}}]}}", 0);
    serve(b, "/filter", 200, "{\"Nodes\": {\"items\": [{\"metadata\": {\"name\": \"n2\"}}]}}", 0);
    char ext[600];
    snprintf(ext, sizeof ext,
             "[{\"urlPrefix\": \"%s\", \"filterVerb\": \"filter\", \"ignorable\": true},"
             " {\"urlPrefix\": \"%s\", \"filterVerb\": \"filter\"}]",
             a->http->url, b->http->url);
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    add_node(&h, "n2", NULL);
    add_pod(&h, "p", false);
    run_all(&h);
    /* b ran first and left n2; a then claimed n1, which it was not sent */
    assert_int_equal(hits(b, "/filter"), 1);
    assert_int_equal(hits(a, "/filter"), 1);
    cJSON *req = last_request(a, "/filter");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(req, "Nodes"), "items")), 1);
    cJSON_Delete(req);
    /* a's error is skipped (ignorable): the pod lands on n2 */
    assert_string_equal(get(&h, "p")->node, "n2");
    harness_free(&h);
    server_stop(a);
    server_stop(b);
}

/* ---- preempt ------------------------------------------------------------ */

static ms_pod *decode_pod(ms_decoder *d, const char *json) {
    cJSON *j = cJSON_Parse(json);
    ms_pod *p = NULL;
    ms_error err;
    if (ms_pod_decode(d, j, &p, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    return p;
}

/* ms_extenders_new on an `extenders` list in JSON (n: how many of its
 * entries; -1: all). */
static ms_rc extenders_try(ms_interner *in, const ms_http_caller *http, const char *json, int n, ms_extenders **e,
                           ms_error *err) {
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    ms_extender_config *ec;
    uint32_t nec;
    assert_int_equal(ms_extender_configs_parse(j, &ec, &nec, NULL, NULL, NULL, err), MS_OK);
    cJSON_Delete(j);
    *e = NULL;
    ms_rc rc = ms_extenders_new(ec, n < 0 ? nec : (uint32_t)n, in, http, e, err);
    ms_extender_configs_free(ec, nec);
    return rc;
}

/* Extenders from an `extenders` list in JSON. */
static ms_extenders *extenders_from_json(ms_interner *in, const http_env *http, const char *json) {
    ms_extenders *e;
    ms_error err;
    if (extenders_try(in, &http->c, json, -1, &e, &err) != MS_OK) fail_msg("%s", err.msg);
    return e;
}

static void test_preempt(void **state) {
    (void)state;
    ext_server *srv = server_start();
    ms_interner *in = ms_interner_new();
    http_env http;
    http_open(&http);
    ms_decoder d;
    ms_decoder_init(&d, in);
    d.keep_raw = true;
    ms_cache *cache = ms_cache_new(in, 0);
    const char *nodes[] = {"n1", "n2"};
    for (int i = 0; i < 2; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "{\"metadata\": {\"name\": \"%s\"}, \"status\": {\"allocatable\": {\"cpu\": \"4\", \"pods\": \"10\"}}}",
                 nodes[i]);
        cJSON *j = cJSON_Parse(json);
        ms_node *n = NULL;
        ms_error err;
        assert_int_equal(ms_node_decode(&d, j, &n, &err), MS_OK);
        cJSON_Delete(j);
        assert_int_equal(ms_cache_add_node(cache, n), MS_OK);
        ms_node_unref(n);
    }
    ms_pod *v1 = decode_pod(&d, "{\"metadata\": {\"name\": \"v1\", \"namespace\": \"default\", \"uid\": \"u-1\"},"
                                " \"spec\": {\"nodeName\": \"n1\", \"containers\": [{\"name\": \"c\"}]}}");
    ms_pod *v2 = decode_pod(&d, "{\"metadata\": {\"name\": \"v2\", \"namespace\": \"default\", \"uid\": \"u-2\"},"
                                " \"spec\": {\"nodeName\": \"n1\", \"containers\": [{\"name\": \"c\"}]}}");
    ms_pod *v3 = decode_pod(&d, "{\"metadata\": {\"name\": \"v3\", \"namespace\": \"default\", \"uid\": \"u-3\"},"
                                " \"spec\": {\"nodeName\": \"n2\", \"containers\": [{\"name\": \"c\"}]}}");
    ms_pod *pre = decode_pod(&d, "{\"metadata\": {\"name\": \"big\", \"namespace\": \"default\", \"uid\": \"u-big\"},"
                                 " \"spec\": {\"priority\": 100, \"containers\": [{\"name\": \"c\"}]}}");
    assert_int_equal(ms_cache_add_pod(cache, v1), MS_OK);
    assert_int_equal(ms_cache_add_pod(cache, v2), MS_OK);
    assert_int_equal(ms_cache_add_pod(cache, v3), MS_OK);
    ms_snapshot snap;
    ms_snapshot_init(&snap);
    assert_int_equal(ms_cache_update_snapshot(cache, &snap), MS_OK);

    ms_pod *victims1[] = {v1, v2}, *victims2[] = {v3};
    ms_preemption_candidate in_cands[2] = {
        {.node = ms_intern_cstr(in, "n2"), .nvictims = 1, .victims = victims2, .num_pdb_violations = 0},
        {.node = ms_intern_cstr(in, "n1"), .nvictims = 2, .victims = victims1, .num_pdb_violations = 1},
    };
    /* the extender drops n2 and one of n1's victims */
    serve(srv, "/preempt", 200,
          "{\"nodeNameToMetaVictims\": {\"n1\": {\"Pods\": [{\"uid\": \"u-2\"}], \"NumPDBViolations\": 0}}}", 0);
    for (int cache_capable = 0; cache_capable < 2; cache_capable++) {
        char ext[512];
        snprintf(ext, sizeof ext,
                 "[{\"urlPrefix\": \"%s\", \"preemptVerb\": \"preempt\", \"nodeCacheCapable\": %s}]", srv->http->url,
                 cache_capable ? "true" : "false");
        ms_error err;
        ms_extenders *e = extenders_from_json(in, &http, ext);
        ms_arena a;
        ms_arena_init(&a, 4096);
        ms_preemption_candidate *cands = in_cands;
        uint32_t ncands = 2;
        assert_int_equal(ms_extenders_preempt(e, pre, &snap, &cands, &ncands, &a, &err), MS_OK);
        assert_int_equal(ncands, 1);
        assert_string_equal(ms_str_get(in, cands[0].node), "n1");
        assert_non_null(cands[0].ni);
        assert_int_equal(cands[0].nvictims, 1);
        assert_ptr_equal(cands[0].victims[0], v2);
        assert_int_equal(cands[0].num_pdb_violations, 0);
        /* the input is left alone */
        assert_int_equal(in_cands[1].nvictims, 2);

        cJSON *req = last_request(srv, "/preempt");
        assert_string_equal(
            cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(req, "Pod"), "metadata"), "name")->valuestring,
            "big");
        const cJSON *full = cJSON_GetObjectItem(req, "NodeNameToVictims");
        const cJSON *meta = cJSON_GetObjectItem(req, "NodeNameToMetaVictims");
        if (cache_capable) {
            assert_true(cJSON_IsNull(full));
            const cJSON *n1 = cJSON_GetObjectItem(meta, "n1");
            assert_int_equal(cJSON_GetObjectItem(n1, "NumPDBViolations")->valueint, 1);
            const cJSON *pods = cJSON_GetObjectItem(n1, "Pods");
            assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(pods, 1), "UID")->valuestring, "u-2");
        } else {
            assert_true(cJSON_IsNull(meta));
            /* keys in order, as Go writes maps */
            assert_string_equal(full->child->string, "n1");
            const cJSON *pods = cJSON_GetObjectItem(cJSON_GetObjectItem(full, "n2"), "Pods");
            const cJSON *p0 = cJSON_GetArrayItem(pods, 0);
            assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(p0, "spec"), "nodeName")->valuestring, "n2");
        }
        cJSON_Delete(req);

        /* a pod the node does not have, and an empty victim list */
        serve(srv, "/preempt", 200, "{\"NodeNameToMetaVictims\": {\"n2\": {\"Pods\": [{\"UID\": \"u-1\"}]}}}", 0);
        cands = in_cands;
        ncands = 2;
        assert_int_equal(ms_extenders_preempt(e, pre, &snap, &cands, &ncands, &a, &err), MS_EIO);
        char want[300];
        snprintf(want, sizeof want,
                 "extender: %s claims to preempt pod (UID: u-1) on node: n2, but the pod is not found on that node",
                 srv->http->url);
        assert_string_equal(err.msg, want);
        serve(srv, "/preempt", 200, "{\"NodeNameToMetaVictims\": {\"n2\": {\"Pods\": []}}}", 0);
        ncands = 2;
        cands = in_cands;
        assert_int_equal(ms_extenders_preempt(e, pre, &snap, &cands, &ncands, &a, &err), MS_EIO);
        assert_string_equal(err.msg, "expected at least one victim pod on node \"n2\"");
        serve(srv, "/preempt", 200,
              "{\"nodeNameToMetaVictims\": {\"n1\": {\"Pods\": [{\"uid\": \"u-2\"}], \"NumPDBViolations\": 0}}}", 0);
        ms_arena_free(&a);
        ms_extenders_free(e);
    }
    ms_snapshot_free(&snap);
    ms_pod_unref(v1);
    ms_pod_unref(v2);
    ms_pod_unref(v3);
    ms_pod_unref(pre);
    ms_cache_free(cache);
    ms_interner_free(in);
    http_close(&http);
    server_stop(srv);
}

/* TLS settings are checked when the extenders are built. */
/* The preempt verb through the scheduler: DefaultPreemption hands its
 * candidates to the extender, and an answer with no node leaves the
 * preemptor without a candidate (upstream's callExtenders). */
static void decode_add_pod(harness *h, const char *json) {
    cJSON *j = cJSON_Parse(json);
    assert_non_null(j);
    ms_pod *p = NULL;
    ms_error err;
    if (ms_pod_decode(ms_scheduler_decoder(h->s), j, &p, &err) != MS_OK) fail_msg("%s", err.msg);
    cJSON_Delete(j);
    ms_scheduler_pod_add(h->s, p, h->now);
    ms_pod_unref(p);
}

static void test_preempt_verb_in_cycle(void **state) {
    (void)state;
    ext_server *srv = server_start();
    serve(srv, "/preempt", 200, "{\"NodeNameToMetaVictims\": {}}", 0);
    char ext[512];
    snprintf(ext, sizeof ext, "[{\"urlPrefix\": \"%s\", \"preemptVerb\": \"preempt\"}]", srv->http->url);
    harness h;
    harness_init(&h, ext);
    add_node(&h, "n1", NULL);
    decode_add_pod(&h, "{\"metadata\": {\"name\": \"low\", \"namespace\": \"default\", \"uid\": \"u-low\"},"
                       " \"spec\": {\"nodeName\": \"n1\", \"priority\": 0, \"containers\": [{\"name\": \"c\","
                       "   \"resources\": {\"requests\": {\"cpu\": \"4\"}}}]}}");
    decode_add_pod(&h, "{\"metadata\": {\"name\": \"high\", \"namespace\": \"default\", \"uid\": \"u-high\"},"
                       " \"spec\": {\"priority\": 100, \"containers\": [{\"name\": \"c\","
                       "   \"resources\": {\"requests\": {\"cpu\": \"1\"}}}]}}");
    run_all(&h);
    cJSON *req = last_request(srv, "/preempt");
    assert_non_null(req);
    const cJSON *victims = cJSON_GetObjectItem(cJSON_GetObjectItem(req, "NodeNameToVictims"), "n1");
    assert_non_null(victims);
    cJSON_Delete(req);
    assert_string_equal(get(&h, "high")->node, "");
    if (!strstr(get(&h, "high")->message, "preemption: extenders left no candidate node"))
        fail_msg("got: %s", get(&h, "high")->message);
    harness_free(&h);
    server_stop(srv);
}

/* The extenders call through the caller they are given, and refuse to
 * start without one. */
static void test_needs_http_caller(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    const char *json = "[{\"urlPrefix\": \"http://127.0.0.1:1\", \"filterVerb\": \"f\"}]";
    ms_extenders *e;
    ms_error err;
    assert_int_equal(extenders_try(in, NULL, json, -1, &e, &err), MS_EINVAL);
    assert_string_equal(err.msg, "extenders: no HTTP client to call them with");
    assert_null(e);
    assert_int_equal(extenders_try(in, NULL, json, 0, &e, &err), MS_OK);
    ms_extenders_free(e);
    ms_interner_free(in);
}

static void test_tls_setup_errors(void **state) {
    (void)state;
    static const struct {
        const char *json;
        const char *msg;
    } cases[] = {
        {"[{\"urlPrefix\": \"https://a\", \"tlsConfig\": {\"insecure\": true, \"caData\": \"aGVsbG8=\"}}]",
         "extenders[0].tlsConfig: specifying a root certificates file with the insecure flag is not allowed"},
        {"[{\"urlPrefix\": \"https://a\", \"filterVerb\": \"f\", \"tlsConfig\": {\"caFile\": \"/nonexistent/ca.pem\"}}]",
         "extenders[0].tlsConfig.caFile: cannot read /nonexistent/ca.pem"},
        {"[{\"urlPrefix\": \"https://a\", \"tlsConfig\": {\"certFile\": \"/nonexistent/c\", \"keyFile\": \"/x\"}}]",
         "extenders[0].tlsConfig.certFile: cannot read /nonexistent/c"},
    };
    ms_interner *in = ms_interner_new();
    http_env http;
    http_open(&http);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_extenders *e;
        ms_error err;
        ms_rc rc = extenders_try(in, &http.c, cases[i].json, -1, &e, &err);
        if (rc == MS_OK || strcmp(err.msg, cases[i].msg) != 0)
            fail_msg("case %zu: rc %d\n got: %s\nwant: %s", i, rc, rc ? err.msg : "", cases[i].msg);
        assert_null(e);
    }
    /* enableHTTPS to a plain HTTP server: the TLS handshake is tried (and
     * fails), and serverName steers the name while the connection still
     * goes to the URL's address */
    ext_server *srv = server_start();
    char json[512];
    snprintf(json, sizeof json,
             "[{\"urlPrefix\": \"https://127.0.0.1:%d\", \"bindVerb\": \"bind\", \"enableHTTPS\": true,"
             "  \"tlsConfig\": {\"serverName\": \"extender.test\"}}]",
             srv->http->port);
    ms_error err;
    ms_extenders *e = extenders_from_json(in, &http, json);
    ms_pod *pod = ms_pod_alloc();
    pod->meta.name = ms_intern_cstr(in, "p");
    pod->meta.namespace_ = ms_intern_cstr(in, "default");
    bool bound = false;
    assert_int_equal(ms_extenders_bind(e, pod, ms_intern_cstr(in, "n1"), &bound, &err), MS_EIO);
    assert_true(bound);
    char want[128];
    snprintf(want, sizeof want, "Post \"https://127.0.0.1:%d/bind\": ", srv->http->port);
    if (strncmp(err.msg, want, strlen(want)) != 0) fail_msg("got: %s", err.msg);
    /* the server saw bytes that were not an HTTP request */
    assert_int_equal(fh_nreqs(srv->http), 0);
    assert_int_equal(fh_nconns(srv->http), 1);
    ms_pod_unref(pod);
    ms_extenders_free(e);
    server_stop(srv);
    ms_interner_free(in);
    http_close(&http);
}

/* ---- HTTPS against openssl s_server ------------------------------------ */

typedef struct tls_peer {
    int to_server;                 /* s_server's stdin */
    int from_server;               /* its stdout: what the client sent */
    char request[8192];
    size_t len;
} tls_peer;

/* Reads one HTTP request from s_server's output, then answers it. */
static void *tls_peer_main(void *arg) {
    tls_peer *p = arg;
    for (;;) {
        ssize_t r = read(p->from_server, p->request + p->len, sizeof p->request - 1 - p->len);
        if (r <= 0) return NULL;
        p->len += (size_t)r;
        p->request[p->len] = '\0';
        char *end = strstr(p->request, "\r\n\r\n");
        char *cl = strcasestr(p->request, "Content-Length:");
        if (end && cl && p->len >= (size_t)(end + 4 - p->request) + (size_t)atol(cl + 15)) break;
    }
    const char *answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n"
                         "{\"Error\":\"\"}";
    ssize_t w = write(p->to_server, answer, strlen(answer));
    (void)w;
    return NULL;
}

static int run(const char *cmd) { return system(cmd); }

/* A real TLS round trip: the server's certificate is checked against caData
 * under tlsConfig.serverName (the connection itself goes to 127.0.0.1), and
 * the server requires the client certificate from certFile/keyFile. Needs
 * the openssl command; skipped without it. */
static void test_https_round_trip(void **state) {
    (void)state;
    if (run("openssl version >/dev/null 2>&1") != 0) {
        skip();
        return;
    }
    char dir[] = "/tmp/test_extender_tls_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "(cd %s && E='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes' &&"
             " openssl req -x509 $E -keyout ca.key -out ca.pem -subj /CN=test-ca -days 1 &&"
             " openssl req $E -keyout srv.key -out srv.csr -subj /CN=extender.test &&"
             " printf 'subjectAltName=DNS:extender.test\\n' >ext.cnf &&"
             " openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem -days 1"
             "   -extfile ext.cnf &&"
             " openssl req $E -keyout cli.key -out cli.csr -subj /CN=scheduler &&"
             " openssl x509 -req -in cli.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cli.pem -days 1)"
             " >/dev/null 2>&1",
             dir);
    assert_int_equal(run(cmd), 0);
    /* a free port for s_server */
    ext_server *probe = server_start();
    int port = probe->http->port;
    server_stop(probe);

    int in_pipe[2], out_pipe[2];
    assert_int_equal(pipe(in_pipe), 0);
    assert_int_equal(pipe(out_pipe), 0);
    char accept_arg[64], cert[300], key[300], ca[300];
    snprintf(accept_arg, sizeof accept_arg, "127.0.0.1:%d", port);
    snprintf(cert, sizeof cert, "%s/srv.pem", dir);
    snprintf(key, sizeof key, "%s/srv.key", dir);
    snprintf(ca, sizeof ca, "%s/ca.pem", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(in_pipe[0], 0);
        dup2(out_pipe[1], 1);
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, 2);
        close(in_pipe[1]);
        close(out_pipe[0]);
        execlp("openssl", "openssl", "s_server", "-accept", accept_arg, "-cert", cert, "-key", key, "-CAfile", ca,
               "-Verify", "1", "-quiet", "-naccept", "2", (char *)NULL);
        _exit(127);
    }
    close(in_pipe[0]);
    close(out_pipe[1]);
    tls_peer peer = {.to_server = in_pipe[1], .from_server = out_pipe[0]};
    pthread_t th;
    pthread_create(&th, NULL, tls_peer_main, &peer);

    /* caData as base64 of ca.pem, the client pair as files */
    FILE *f = fopen(ca, "rb");
    assert_non_null(f);
    unsigned char pem[8192];
    size_t n = fread(pem, 1, sizeof pem, f);
    fclose(f);
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char b64[12000], *o = b64;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)pem[i] << 16 | (i + 1 < n ? (uint32_t)pem[i + 1] << 8 : 0) | (i + 2 < n ? pem[i + 2] : 0);
        *o++ = tab[v >> 18 & 63];
        *o++ = tab[v >> 12 & 63];
        *o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? tab[v & 63] : '=';
    }
    *o = '\0';
    ms_interner *in = ms_interner_new();
    http_env http;
    http_open(&http);
    ms_pod *pod = ms_pod_alloc();
    pod->meta.name = ms_intern_cstr(in, "p");
    pod->meta.namespace_ = ms_intern_cstr(in, "default");
    pod->meta.uid = "u-p";
    ms_extenders *e = NULL;
    ms_error err;
    ms_rc rc = MS_EIO;
    bool bound = false;
    /* first a name the certificate does not carry, then the right one */
    const char *names[2] = {"wrong.test", "extender.test"};
    for (int k = 0; k < 2; k++) {
        char json[16384];
        snprintf(json, sizeof json,
                 "[{\"urlPrefix\": \"https://127.0.0.1:%d/ext\", \"bindVerb\": \"bind\", \"enableHTTPS\": true,"
                 "  \"httpTimeout\": \"5s\", \"tlsConfig\": {\"serverName\": \"%s\", \"caData\": \"%s\","
                 "  \"certFile\": \"%s/cli.pem\", \"keyFile\": \"%s/cli.key\"}}]",
                 port, names[k], b64, dir, dir);
        cJSON *j = cJSON_Parse(json);
        assert_non_null(j);
        ms_extender_config *ec;
        uint32_t next;
        assert_int_equal(ms_extender_configs_parse(j, &ec, &next, NULL, NULL, NULL, &err), MS_OK);
        cJSON_Delete(j);
        ms_extenders_free(e);
        if (ms_extenders_new(ec, next, in, &http.c, &e, &err) != MS_OK) fail_msg("%s", err.msg);
        ms_extender_configs_free(ec, next);
        /* s_server needs a moment to listen; a refused connection never reaches it */
        for (int tries = 0; tries < 100; tries++) {
            rc = ms_extenders_bind(e, pod, ms_intern_cstr(in, "n1"), &bound, &err);
            if (rc == MS_OK || !strstr(err.msg, "Couldn't connect")) break;
            fh_sleep(0.05);
        }
        if (k == 0) {
            assert_int_equal(rc, MS_EIO);
            if (!strstr(err.msg, "wrong.test")) fail_msg("expected a certificate name error, got: %s", err.msg);
        }
    }
    if (rc != MS_OK) fail_msg("%s", err.msg);
    assert_true(bound);
    pthread_join(th, NULL);
    assert_non_null(strstr(peer.request, "POST /ext/bind HTTP/1.1\r\n"));
    assert_non_null(strstr(peer.request, "\r\nHost: extender.test:"));
    assert_non_null(strstr(peer.request,
                           "{\"PodName\":\"p\",\"PodNamespace\":\"default\",\"PodUID\":\"u-p\",\"Node\":\"n1\"}"));
    ms_pod_unref(pod);
    ms_extenders_free(e);
    ms_interner_free(in);
    http_close(&http);
    close(in_pipe[1]);
    close(out_pipe[0]);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(run(cmd), 0);
}

/* keep_raw: decoded objects carry their compact JSON. */
static void test_decoder_keeps_raw(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    http_env http;
    http_open(&http);
    ms_decoder d;
    ms_decoder_init(&d, in);
    assert_false(d.keep_raw);
    const char *json = "{\"metadata\": {\"name\": \"p\", \"annotations\": {\"a\": \"b\"}},"
                       " \"spec\": {\"containers\": [{\"name\": \"c\"}]}}";
    ms_pod *p = decode_pod(&d, json);
    assert_null(p->raw);
    ms_pod_unref(p);
    d.keep_raw = true;
    p = decode_pod(&d, json);
    assert_string_equal(p->raw, "{\"metadata\":{\"name\":\"p\",\"annotations\":{\"a\":\"b\"}},"
                                "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}");
    assert_int_equal(p->raw_len, strlen(p->raw));
    /* the assumed copy shares it */
    ms_pod *c = ms_pod_with_node(p, ms_intern_cstr(in, "n1"));
    assert_ptr_equal(c->raw, p->raw);
    ms_pod_unref(c);
    ms_pod_unref(p);
    ms_interner_free(in);
    http_close(&http);
}

/* The answer readers without a call, as the fuzz target drives them. */
static void test_answer_readers(void **state) {
    (void)state;
    ms_interner *in = ms_interner_new();
    http_env http;
    http_open(&http);
    ms_extenders *e = extenders_from_json(in, &http, "[{\"urlPrefix\": \"http://127.0.0.1:1\", \"filterVerb\": \"f\","
                                              " \"prioritizeVerb\": \"p\", \"weight\": 2, \"nodeCacheCapable\": true}]");
    ms_error err;
    ms_node_info *n1 = ms_node_info_new(ms_intern_cstr(in, "n1"));
    ms_node_info *n2 = ms_node_info_new(ms_intern_cstr(in, "n2"));
    ms_node_info *nodes[2] = {n1, n2};
    ms_arena a;
    ms_arena_init(&a, 4096);

    ms_extender_filter_result fr;
    cJSON *ans = cJSON_Parse("{\"nodeNames\": [\"n2\", \"n2\"], \"failedNodes\": {\"n1\": \"full\"}}");
    assert_int_equal(ms_extenders_read_filter(e, 0, ans, nodes, 2, &a, &fr, &err), MS_OK);
    assert_int_equal(fr.nfeasible, 1);
    assert_int_equal(fr.feasible[0], 1);
    assert_int_equal(fr.statuses[0].code, MS_UNSCHEDULABLE);
    assert_string_equal(fr.statuses[0].reasons[0], "full");
    cJSON_Delete(ans);
    ans = cJSON_Parse("{\"NodeNames\": [\"n3\"]}");
    assert_int_equal(ms_extenders_read_filter(e, 0, ans, nodes, 2, &a, &fr, &err), MS_EIO);
    assert_int_equal(fr.nfeasible, 0);
    cJSON_Delete(ans);

    int64_t row[2];
    ans = cJSON_Parse("[{\"Host\": \"n1\", \"Score\": 3}, {\"Host\": \"nx\", \"Score\": 9}]");
    assert_int_equal(ms_extenders_read_priorities(e, 0, ans, nodes, 2, row, &err), MS_OK);
    assert_int_equal(row[0], 3 * 2 * (MS_MAX_NODE_SCORE / MS_MAX_EXTENDER_PRIORITY));
    assert_int_equal(row[1], 0);
    cJSON_Delete(ans);
    /* Go's int64 arithmetic wraps: 3 * 2^61 * 2 * 10 is -2^63 there */
    ans = cJSON_Parse("[{\"Host\": \"n1\", \"Score\": 6917529027641081856}]");
    assert_int_equal(ms_extenders_read_priorities(e, 0, ans, nodes, 2, row, &err), MS_OK);
    assert_true(row[0] == INT64_MIN);
    cJSON_Delete(ans);
    ans = cJSON_Parse("[{\"Host\": \"n1\", \"Score\": 3}, {\"Host\": \"n2\", \"Score\": \"x\"}]");
    assert_int_equal(ms_extenders_read_priorities(e, 0, ans, nodes, 2, row, &err), MS_EIO);
    assert_int_equal(row[0], 0);   /* a rejected list scores nothing */
    cJSON_Delete(ans);

    ans = cJSON_Parse("{\"error\": \"no room\"}");
    assert_int_equal(ms_extenders_read_binding(ans, &err), MS_EIO);
    assert_string_equal(err.msg, "no room");
    cJSON_Delete(ans);
    ans = cJSON_Parse("null");
    assert_int_equal(ms_extenders_read_binding(ans, &err), MS_OK);
    cJSON_Delete(ans);

    ms_arena_free(&a);
    ms_node_info_free(n1);
    ms_node_info_free(n2);
    ms_extenders_free(e);
    ms_interner_free(in);
    http_close(&http);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_fields),
        cmocka_unit_test(test_answer_readers),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_config_warnings),
        cmocka_unit_test(test_config_through_loader),
        cmocka_unit_test(test_json_field_folding),
        cmocka_unit_test(test_decoder_keeps_raw),
        cmocka_unit_test(test_filter_reasons_in_fit_error),
        cmocka_unit_test(test_filter_keeps_subset),
        cmocka_unit_test(test_filter_bad_answers),
        cmocka_unit_test(test_prioritize_changes_placement),
        cmocka_unit_test(test_prioritize_scaling),
        cmocka_unit_test(test_bind_verb),
        cmocka_unit_test(test_bind_ignorable_falls_back),
        cmocka_unit_test(test_extender_down),
        cmocka_unit_test(test_http_timeout),
        cmocka_unit_test(test_node_cache_capable),
        cmocka_unit_test(test_managed_resources),
        cmocka_unit_test(test_call_order),
        cmocka_unit_test(test_preempt),
        cmocka_unit_test(test_preempt_verb_in_cycle),
        cmocka_unit_test(test_needs_http_caller),
        cmocka_unit_test(test_tls_setup_errors),
        cmocka_unit_test(test_https_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
