#include "testutil.h"

#include "fixtures.h"

#include "backend/queue.h"
#include "framework/runners.h"
#include "moonsched/framework.h"

/* Fake plugins: each instance's behaviour lives in `fakes[i]`, every call is
 * appended to `calls`, and a call made with c->current != the plugin's
 * framework index is counted in `wrong_current`. */
typedef struct fake {
    const char *tag;
    uint32_t index;
    ms_code pre_filter, filter, post_filter, pre_score, score, normalize, reserve, permit,
        pre_bind, bind;
    bool pre_enqueue_ok;
    bool helps;                    /* its queueing hint's answer */
    double permit_timeout;
    int64_t scores[4];
    const char *reason;
    ms_str nominate;
} fake;

enum { FA, FB, FC, FNORM, NFAKES };
static fake fakes[NFAKES];
static char calls[1024];
static int wrong_current;
static int destroyed;

static void logcall(const fake *f, const char *point) {
    size_t n = strlen(calls);
    snprintf(calls + n, sizeof calls - n, "%s%s.%s", n ? " " : "", f->tag, point);
}

static void check_current(const fake *f, const ms_cycle *c) {
    if (c->current != f->index) wrong_current++;
}

static ms_code answer(fake *f, ms_cycle *c, const char *point, ms_code code, ms_status *st) {
    logcall(f, point);
    if (c) check_current(f, c);
    if (code != MS_SUCCESS) ms_status_set(st, code, f->reason);
    return code;
}

static bool fk_pre_enqueue(void *self, const ms_pod *pod, const char **reason) {
    fake *f = self;
    (void)pod;
    logcall(f, "preEnqueue");
    if (!f->pre_enqueue_ok) *reason = f->reason;
    return f->pre_enqueue_ok;
}
static bool fk_queueing_hint(void *self, const ms_pod *pod, ms_event_mask ev, const void *old_obj,
                             const void *new_obj) {
    (void)pod;
    (void)ev;
    (void)old_obj;
    (void)new_obj;
    return ((const fake *)self)->helps;
}
static bool fk_less(void *self, const ms_queued_pod *a, const ms_queued_pod *b) {
    (void)self;
    return a->seq > b->seq;   /* reversed on purpose: proves the plugin is used */
}
static ms_code fk_pre_filter(void *self, ms_cycle *c, ms_status *st) {
    fake *f = self;
    c->state[c->current] = f;
    return answer(f, c, "preFilter", f->pre_filter, st);
}
static ms_code fk_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)ni;
    return answer(self, c, "filter", ((fake *)self)->filter, st);
}
static ms_code fk_post_filter(void *self, ms_cycle *c, const ms_status *statuses,
                              ms_str *nominated, ms_status *st) {
    fake *f = self;
    (void)statuses;
    if (f->post_filter == MS_SUCCESS) *nominated = f->nominate;
    return answer(f, c, "postFilter", f->post_filter, st);
}
static ms_code fk_pre_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                            ms_status *st) {
    (void)nodes;
    (void)n;
    return answer(self, c, "preScore", ((fake *)self)->pre_score, st);
}
static ms_code fk_score(void *self, ms_cycle *c, ms_node_info *const *nodes, uint32_t n,
                        int64_t *scores, ms_status *st) {
    fake *f = self;
    (void)nodes;
    for (uint32_t i = 0; i < n; i++) scores[i] = f->scores[i];
    return answer(f, c, "score", f->score, st);
}
static ms_code fk_normalize(void *self, ms_cycle *c, int64_t *scores, uint32_t n, ms_status *st) {
    fake *f = self;
    if (f->normalize == MS_SUCCESS) ms_default_normalize_score(MS_MAX_NODE_SCORE, false, scores, n);
    return answer(f, c, "normalize", f->normalize, st);
}
static ms_code fk_reserve(void *self, ms_cycle *c, ms_str node, ms_status *st) {
    (void)node;
    return answer(self, c, "reserve", ((fake *)self)->reserve, st);
}
static void fk_unreserve(void *self, ms_cycle *c, ms_str node) {
    (void)node;
    answer(self, c, "unreserve", MS_SUCCESS, NULL);
}
static ms_code fk_permit(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st) {
    fake *f = self;
    (void)node;
    *timeout = f->permit_timeout;
    return answer(f, c, "permit", f->permit, st);
}
static ms_code fk_pre_bind(void *self, ms_cycle *c, ms_str node, double *timeout, ms_status *st) {
    (void)c;
    (void)node;
    (void)timeout;
    return answer(self, NULL, "preBind", ((fake *)self)->pre_bind, st);
}
static ms_code fk_bind(void *self, const ms_pod *pod, ms_str node, ms_status *st) {
    (void)pod;
    (void)node;
    return answer(self, NULL, "bind", ((fake *)self)->bind, st);
}
static void fk_post_bind(void *self, const ms_pod *pod, ms_str node) {
    (void)pod;
    (void)node;
    logcall(self, "postBind");
}
static void fk_destroy(void *self) {
    (void)self;
    destroyed++;
}

#define FAKE_OPS(id, NAME, EVENTS, NORMALIZE)                                              \
    static ms_rc create_##id(const cJSON *args, const ms_handle *h, void **self,          \
                             ms_error *err) {                                             \
        (void)args;                                                                       \
        (void)h;                                                                          \
        (void)err;                                                                        \
        *self = &fakes[id];                                                               \
        return MS_OK;                                                                     \
    }                                                                                     \
    static const ms_plugin_ops ops_##id = {                                               \
        .name = NAME, .events = EVENTS, .create = create_##id, .destroy = fk_destroy,     \
        .pre_enqueue = fk_pre_enqueue, .less = fk_less, .pre_filter = fk_pre_filter,      \
        .filter = fk_filter, .post_filter = fk_post_filter, .pre_score = fk_pre_score,    \
        .score = fk_score, .normalize_score = NORMALIZE, .reserve = fk_reserve,           \
        .unreserve = fk_unreserve, .permit = fk_permit, .pre_bind = fk_pre_bind,          \
        .bind = fk_bind, .post_bind = fk_post_bind, .queueing_hint = fk_queueing_hint,    \
    };

FAKE_OPS(FA, "FakeA", MS_EV_NODE_ADD, NULL)
FAKE_OPS(FB, "FakeB", MS_EV_NODE_TAINT | MS_EV_NODE_LABEL, NULL)
FAKE_OPS(FC, "FakeC", 0, NULL)
FAKE_OPS(FNORM, "FakeNorm", MS_EV_ASSIGNED_POD_DELETE, fk_normalize)

/* Implements Filter only: enabled everywhere (multiPoint), called only there. */
static ms_rc create_filter_only(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    (void)h;
    (void)err;
    *self = &fakes[FC];
    return MS_OK;
}
static const ms_plugin_ops ops_filter_only = {
    .name = "FilterOnly", .create = create_filter_only, .filter = fk_filter,
};

/* Filter that logs how many pods the NodeInfo holds and rejects the node
 * when there are more than fakes[FA].scores[0]. */
static ms_code count_pods_filter(void *self, ms_cycle *c, const ms_node_info *ni, ms_status *st) {
    (void)self;
    (void)c;
    size_t n = strlen(calls);
    snprintf(calls + n, sizeof calls - n, "%snpods=%u", n ? " " : "", ni->npods);
    if (ni->npods > fakes[FA].scores[0]) return ms_status_set(st, MS_UNSCHEDULABLE, "too many pods");
    return MS_SUCCESS;
}
static const ms_plugin_ops ops_count_pods = {.name = "CountPods", .filter = count_pods_filter};

static ms_rc create_failing(const cJSON *args, const ms_handle *h, void **self, ms_error *err) {
    (void)args;
    (void)h;
    (void)self;
    return ms_error_set(err, MS_EINVAL, "bad args");
}
static const ms_plugin_ops ops_failing = {.name = "Failing", .create = create_failing, .filter = fk_filter};

static const ms_plugin_ops *const out_of_tree[] = {
    &ops_FA, &ops_FB, &ops_FC, &ops_FNORM, &ops_filter_only, &ops_failing, &ops_count_pods,
};
#define NOOT (sizeof out_of_tree / sizeof out_of_tree[0])

#define ALL_POINTS ((1u << MS_EP_COUNT) - 1)
#define BIT(ep) (1u << (ep))

/* Appends a plugin and lists it last at every point it is enabled at. */
static uint32_t add_plugin(ms_profile_config *pc, const char *name, uint32_t points, int32_t weight) {
    uint32_t i = pc->nplugins++;
    ms_plugin_config *p = &pc->plugins[i];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    p->points = points;
    p->weight = weight;
    for (int ep = 0; ep < MS_EP_COUNT; ep++)
        if (points & BIT(ep)) pc->order[ep][pc->norder[ep]++] = (uint8_t)i;
    return i;
}

/* A profile with the given fakes after PrioritySort and DefaultBinder, which
 * keep QueueSort and Bind valid. */
static void base_profile(ms_profile_config *pc) {
    memset(pc, 0, sizeof *pc);
    snprintf(pc->scheduler_name, sizeof pc->scheduler_name, "test-scheduler");
    pc->percentage_of_nodes_to_score = -1;
    add_plugin(pc, "PrioritySort", BIT(MS_EP_QUEUE_SORT), 0);
}

static void reset_fakes(void) {
    memset(fakes, 0, sizeof fakes);
    const char *tags[NFAKES] = {"A", "B", "C", "N"};
    for (int i = 0; i < NFAKES; i++) {
        fakes[i].tag = tags[i];
        fakes[i].pre_enqueue_ok = true;
        fakes[i].helps = true;
        fakes[i].reason = "fake reason";
    }
    calls[0] = '\0';
    wrong_current = 0;
    destroyed = 0;
}

typedef struct fixture {
    ms_profile_config pc;
    ms_framework fw;
    ms_handle h;
    ms_arena arena;
    ms_pod *pod;
    ms_cycle c;
    ms_interner *in;
    ms_resource_names rn;
} fixture;

static int setup(void **state) {
    fixture *fx = calloc(1, sizeof *fx);
    fx->in = ms_interner_new();
    fx->h.in = fx->in;
    ms_resource_names_init(&fx->rn, fx->in);
    fx->h.rn = &fx->rn;
    fx->h.scratch = ms_node_info_new(MS_STR_NONE);
    ms_arena_init(&fx->arena, 4096);
    fx->pod = ms_pod_alloc();
    base_profile(&fx->pc);
    reset_fakes();
    *state = fx;
    return 0;
}

static int teardown(void **state) {
    fixture *fx = *state;
    ms_pod_unref(fx->pod);
    ms_node_info_free(fx->h.scratch);
    ms_arena_free(&fx->arena);
    ms_interner_free(fx->in);
    free(fx);
    return 0;
}

/* Initializes fx->fw from fx->pc (adding a binder when none) and starts a cycle. */
static void start(fixture *fx) {
    bool has_bind = false;
    for (uint32_t i = 0; i < fx->pc.nplugins; i++)
        if ((fx->pc.plugins[i].points & BIT(MS_EP_BIND)) && strcmp(fx->pc.plugins[i].name, "FilterOnly"))
            has_bind = true;
    if (!has_bind) add_plugin(&fx->pc, "DefaultBinder", BIT(MS_EP_BIND), 0);
    ms_error err = {0};
    ms_rc rc = ms_framework_init_with(&fx->fw, &fx->pc, 50, &fx->h, out_of_tree, NOOT, &err);
    if (rc != MS_OK) fail_msg("init: %s", err.msg);
    for (uint32_t i = 0; i < fx->fw.nplugins; i++) {
        const char *name = fx->fw.plugins[i].ops->name;
        for (int f = 0; f < NFAKES; f++)
            if (fx->fw.plugins[i].self == &fakes[f] && strncmp(name, "Fake", 4) == 0) fakes[f].index = i;
        if (strcmp(name, "FilterOnly") == 0) fakes[FC].index = i;
    }
    ms_arena_reset(&fx->arena);
    memset(&fx->c, 0, sizeof fx->c);
    fx->c.pod = fx->pod;
    fx->c.arena = &fx->arena;
    fx->c.skip_filter = ~0ull;   /* begin_cycle must clear these */
    fx->c.skip_score = ~0ull;
    assert_int_equal(ms_framework_begin_cycle(&fx->fw, &fx->c), MS_OK);
}

static void test_init_resolves_points_and_weights(void **state) {
    fixture *fx = *state;
    add_plugin(&fx->pc, "FilterOnly", ALL_POINTS, 0);
    add_plugin(&fx->pc, "FakeA", BIT(MS_EP_SCORE) | BIT(MS_EP_FILTER), 0);
    add_plugin(&fx->pc, "FakeB", BIT(MS_EP_SCORE), 7);
    start(fx);
    ms_framework *fw = &fx->fw;
    assert_string_equal(fw->scheduler_name, "test-scheduler");
    assert_int_equal(fw->percentage_of_nodes_to_score, 50);   /* -1: the global value */
    assert_int_equal(fw->nplugins, 5);
    /* FilterOnly is enabled everywhere but implements only Filter. */
    assert_int_equal(fw->plugins[1].points, BIT(MS_EP_FILTER));
    assert_int_equal(fw->norder[MS_EP_FILTER], 2);
    assert_int_equal(fw->order[MS_EP_FILTER][0], 1);
    assert_int_equal(fw->order[MS_EP_FILTER][1], 2);
    assert_int_equal(fw->norder[MS_EP_PRE_FILTER], 0);
    assert_int_equal(fw->norder[MS_EP_QUEUE_SORT], 1);
    assert_int_equal(fw->norder[MS_EP_BIND], 1);
    assert_int_equal(ms_framework_nscore(fw), 2);
    assert_string_equal(ms_framework_score_name(fw, 0), "FakeA");
    assert_string_equal(ms_framework_score_name(fw, 1), "FakeB");
    assert_string_equal(ms_framework_score_name(fw, 2), "");
    assert_int_equal(fw->plugins[2].weight, 1);   /* 0 means 1 */
    assert_int_equal(fw->plugins[3].weight, 7);
    assert_string_equal(ms_framework_plugin_name(fw, 4), "DefaultBinder");
    assert_string_equal(ms_framework_plugin_name(fw, -1), "");
    assert_ptr_equal(fx->c.h, &fx->h);
    assert_int_equal(fx->c.skip_filter, 0);
    assert_int_equal(fx->c.skip_score, 0);
    for (uint32_t i = 0; i < fw->nplugins; i++) assert_null(fx->c.state[i]);
    ms_framework_destroy(fw);
    assert_int_equal(destroyed, 2);   /* FakeA and FakeB; FilterOnly has no destroy */
}

static void test_profile_percentage_overrides_global(void **state) {
    fixture *fx = *state;
    fx->pc.percentage_of_nodes_to_score = 0;
    start(fx);
    assert_int_equal(fx->fw.percentage_of_nodes_to_score, 0);
    ms_framework_destroy(&fx->fw);
}

static void expect_init_error(fixture *fx, const char *want) {
    ms_error err = {0};
    ms_framework fw;
    assert_int_not_equal(ms_framework_init_with(&fw, &fx->pc, 0, &fx->h, out_of_tree, NOOT, &err), MS_OK);
    assert_string_equal(err.msg, want);
}

static void test_init_errors(void **state) {
    fixture *fx = *state;
    add_plugin(&fx->pc, "DefaultBinder", BIT(MS_EP_BIND), 0);
    uint32_t a = add_plugin(&fx->pc, "FakeA", BIT(MS_EP_FILTER), 0);
    add_plugin(&fx->pc, "Nope", BIT(MS_EP_FILTER), 0);
    expect_init_error(fx, "profile \"test-scheduler\": plugin \"Nope\" does not exist");
    assert_int_equal(destroyed, 1);   /* FakeA was created, then released */

    /* Built-ins are found without an out-of-tree registry. */
    ms_error err = {0};
    ms_framework fw;
    assert_int_equal(ms_framework_init(&fw, &fx->pc, 0, &fx->h, &err), MS_EINVAL);
    assert_string_equal(err.msg, "profile \"test-scheduler\": plugin \"FakeA\" does not exist");

    snprintf(fx->pc.plugins[a + 1].name, sizeof fx->pc.plugins[0].name, "Failing");
    expect_init_error(fx, "profile \"test-scheduler\": initializing plugin \"Failing\": bad args");

    snprintf(fx->pc.plugins[a + 1].name, sizeof fx->pc.plugins[0].name, "FakeA");
    expect_init_error(fx, "profile \"test-scheduler\": plugin \"FakeA\" is listed twice");

    snprintf(fx->pc.plugins[a + 1].name, sizeof fx->pc.plugins[0].name, "FakeB");
    fx->pc.plugins[a + 1].points = BIT(MS_EP_SCORE);
    fx->pc.plugins[a + 1].weight = -2;
    fx->pc.order[MS_EP_SCORE][fx->pc.norder[MS_EP_SCORE]++] = (uint8_t)(a + 1);
    expect_init_error(fx, "profile \"test-scheduler\": score plugin \"FakeB\" has weight -2, "
                          "it must be positive");
    fx->pc.plugins[a + 1].weight = 1;

    fx->pc.plugins[a].points |= BIT(MS_EP_QUEUE_SORT);
    fx->pc.order[MS_EP_QUEUE_SORT][fx->pc.norder[MS_EP_QUEUE_SORT]++] = (uint8_t)a;
    expect_init_error(fx, "profile \"test-scheduler\": only one queue sort plugin can be enabled");
    fx->pc.norder[MS_EP_QUEUE_SORT] = 0;
    fx->pc.plugins[a].points &= ~BIT(MS_EP_QUEUE_SORT);
    fx->pc.plugins[0].points = 0;
    expect_init_error(fx, "profile \"test-scheduler\": no queue sort plugin is enabled");
    fx->pc.plugins[0].points = BIT(MS_EP_QUEUE_SORT);
    fx->pc.order[MS_EP_QUEUE_SORT][fx->pc.norder[MS_EP_QUEUE_SORT]++] = 0;

    fx->pc.plugins[1].points = 0;
    fx->pc.norder[MS_EP_BIND] = 0;
    expect_init_error(fx, "profile \"test-scheduler\": at least one bind plugin is needed");

    /* Named at a point it does not implement (not through multiPoint). */
    snprintf(fx->pc.plugins[a].name, sizeof fx->pc.plugins[0].name, "FilterOnly");
    fx->pc.plugins[a].explicit_points = BIT(MS_EP_SCORE);
    expect_init_error(fx, "profile \"test-scheduler\": plugin \"FilterOnly\" does not extend "
                          "ScorePlugin plugin");
    fx->pc.plugins[a].explicit_points = BIT(MS_EP_FILTER);
    fx->pc.plugins[1].points = BIT(MS_EP_BIND);
    fx->pc.order[MS_EP_BIND][fx->pc.norder[MS_EP_BIND]++] = 1;
    assert_int_equal(ms_framework_init_with(&fw, &fx->pc, 0, &fx->h, out_of_tree, NOOT, &err), MS_OK);
    ms_framework_destroy(&fw);

    static const ms_plugin_ops shadow = {.name = "NodeName"};
    static const ms_plugin_ops *const bad[] = {&shadow};
    assert_int_equal(ms_framework_init_with(&fw, &fx->pc, 0, &fx->h, bad, 1, &err), MS_EINVAL);
    assert_string_equal(err.msg, "profile \"test-scheduler\": a plugin named \"NodeName\" "
                                 "already exists");
}

/* The config's order decides, not the plugin list's. */
static void test_order_follows_config(void **state) {
    fixture *fx = *state;
    uint32_t a = add_plugin(&fx->pc, "FakeA", 0, 0);
    uint32_t b = add_plugin(&fx->pc, "FakeB", 0, 0);
    uint32_t n = add_plugin(&fx->pc, "FakeNorm", 0, 0);
    uint8_t order[] = {(uint8_t)n, (uint8_t)a, (uint8_t)b};
    for (int k = 0; k < 3; k++) {
        fx->pc.plugins[order[k]].points = BIT(MS_EP_FILTER) | BIT(MS_EP_PRE_FILTER);
        fx->pc.order[MS_EP_FILTER][k] = order[k];
        fx->pc.order[MS_EP_PRE_FILTER][k] = order[2 - k];
    }
    fx->pc.norder[MS_EP_FILTER] = fx->pc.norder[MS_EP_PRE_FILTER] = 3;
    start(fx);
    ms_status st;
    ms_node_info ni = {0};
    assert_int_equal(ms_framework_run_pre_filter(&fx->fw, &fx->c, &st), MS_SUCCESS);
    assert_int_equal(ms_framework_run_filter(&fx->fw, &fx->c, &ni, &st), MS_SUCCESS);
    assert_int_equal(st.code, MS_SUCCESS);
    assert_int_equal(st.plugin, -1);
    assert_string_equal(calls, "B.preFilter A.preFilter N.preFilter N.filter A.filter B.filter");
    assert_int_equal(wrong_current, 0);
    /* Each plugin wrote its own state slot. */
    assert_ptr_equal(fx->c.state[a], &fakes[FA]);
    assert_ptr_equal(fx->c.state[n], &fakes[FNORM]);
    ms_framework_destroy(&fx->fw);
}

static void test_filter_stops_at_first_failure(void **state) {
    fixture *fx = *state;
    add_plugin(&fx->pc, "FakeA", BIT(MS_EP_FILTER), 0);
    uint32_t b = add_plugin(&fx->pc, "FakeB", BIT(MS_EP_FILTER), 0);
    add_plugin(&fx->pc, "FakeC", BIT(MS_EP_FILTER), 0);
    start(fx);
    fakes[FB].filter = MS_UNSCHEDULABLE_AND_UNRESOLVABLE;
    fakes[FB].reason = "node(s) didn't match the requested node name";
    ms_status st;
    ms_node_info ni = {0};
    assert_int_equal(ms_framework_run_filter(&fx->fw, &fx->c, &ni, &st),
                     MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(calls, "A.filter B.filter");
    assert_int_equal(st.code, MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_int_equal(st.plugin, (int)b);
    assert_int_equal(st.nreasons, 1);
    assert_string_equal(st.reasons[0], "node(s) didn't match the requested node name");

    /* Codes other than Success and the rejections are errors. */
    calls[0] = '\0';
    fakes[FB].filter = MS_WAIT;
    assert_int_equal(ms_framework_run_filter(&fx->fw, &fx->c, &ni, &st), MS_ERROR);
    assert_int_equal(st.code, MS_ERROR);
    assert_int_equal(st.plugin, (int)b);
    ms_framework_destroy(&fx->fw);
}

/* A cycle's filter plan runs the same plugins, with the same results, as
 * ms_framework_run_filter: PreFilter's Skips are left out. */
static void test_filter_plan(void **state) {
    fixture *fx = *state;
    add_plugin(&fx->pc, "FakeA", BIT(MS_EP_PRE_FILTER) | BIT(MS_EP_FILTER), 0);
    uint32_t b = add_plugin(&fx->pc, "FakeB", BIT(MS_EP_PRE_FILTER) | BIT(MS_EP_FILTER), 0);
    uint32_t c = add_plugin(&fx->pc, "FakeC", BIT(MS_EP_PRE_FILTER) | BIT(MS_EP_FILTER), 0);
    start(fx);
    fakes[FA].pre_filter = MS_SKIP;
    ms_status st, ref;
    ms_node_info ni = {0};
    assert_int_equal(ms_framework_run_pre_filter(&fx->fw, &fx->c, &st), MS_SUCCESS);
    ms_filter_plan plan;
    ms_framework_filter_plan(&fx->fw, &fx->c, &plan);
    assert_int_equal(plan.n, 2);
    assert_int_equal(plan.steps[0].plugin, b);
    assert_int_equal(plan.steps[1].plugin, c);

    static const struct {
        ms_code b, c, want;
    } cases[] = {
        {MS_SUCCESS, MS_SUCCESS, MS_SUCCESS},
        {MS_UNSCHEDULABLE_AND_UNRESOLVABLE, MS_SUCCESS, MS_UNSCHEDULABLE_AND_UNRESOLVABLE},
        {MS_SUCCESS, MS_UNSCHEDULABLE, MS_UNSCHEDULABLE},
        {MS_SUCCESS, MS_WAIT, MS_ERROR},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        fakes[FB].filter = cases[k].b;
        fakes[FC].filter = cases[k].c;
        fakes[FB].reason = "b says no";
        fakes[FC].reason = "c says no";
        calls[0] = '\0';
        assert_int_equal(ms_framework_run_filter(&fx->fw, &fx->c, &ni, &ref), cases[k].want);
        char via_loop[sizeof calls];
        snprintf(via_loop, sizeof via_loop, "%s", calls);
        calls[0] = '\0';
        memset(&st, 0x5a, sizeof st);
        assert_int_equal(ms_framework_run_filter_plan(&plan, &fx->c, &ni, &st), cases[k].want);
        assert_string_equal(calls, via_loop);
        assert_int_equal(st.code, ref.code);
        assert_int_equal(st.plugin, ref.plugin);
        assert_int_equal(st.nreasons, ref.nreasons);
        for (uint32_t r = 0; r < st.nreasons; r++) assert_string_equal(st.reasons[r], ref.reasons[r]);
    }
    assert_int_equal(wrong_current, 0);
    ms_framework_destroy(&fx->fw);
}

static void test_pre_filter_skip_and_rejection(void **state) {
    fixture *fx = *state;
    uint32_t a = add_plugin(&fx->pc, "FakeA", BIT(MS_EP_PRE_FILTER) | BIT(MS_EP_FILTER), 0);
    uint32_t b = add_plugin(&fx->pc, "FakeB", BIT(MS_EP_PRE_FILTER) | BIT(MS_EP_FILTER), 0);
    start(fx);
    fakes[FA].pre_filter = MS_SKIP;
    ms_status st;
    ms_node_info ni = {0};
    assert_int_equal(ms_framework_run_pre_filter(&fx->fw, &fx->c, &st), MS_SUCCESS);
    assert_int_equal(fx->c.skip_filter, 1ull << a);
    assert_int_equal(ms_framework_run_filter(&fx->fw, &fx->c, &ni, &st), MS_SUCCESS);
    assert_string_equal(calls, "A.preFilter B.preFilter B.filter");

    /* A rejection stops PreFilter and names the plugin. */
    assert_int_equal(ms_framework_begin_cycle(&fx->fw, &fx->c), MS_OK);
    assert_int_equal(fx->c.skip_filter, 0);
    calls[0] = '\0';
    fakes[FA].pre_filter = MS_UNSCHEDULABLE;
    fakes[FA].reason = "node(s) didn't satisfy existing pods anti-affinity rules";
    assert_int_equal(ms_framework_run_pre_filter(&fx->fw, &fx->c, &st), MS_UNSCHEDULABLE);
    assert_string_equal(calls, "A.preFilter");
    assert_int_equal(st.plugin, (int)a);
    assert_string_equal(st.reasons[0], "node(s) didn't satisfy existing pods anti-affinity rules");

    calls[0] = '\0';
    fakes[FA].pre_filter = MS_SUCCESS;
    fakes[FB].pre_filter = MS_WAIT;
    assert_int_equal(ms_framework_run_pre_filter(&fx->fw, &fx->c, &st), MS_ERROR);
    assert_int_equal(st.plugin, (int)b);
    assert_int_equal(wrong_current, 0);
    ms_framework_destroy(&fx->fw);
}

static void test_score_weights_normalize_and_skip(void **state) {
    fixture *fx = *state;
    uint32_t eps = BIT(MS_EP_PRE_SCORE) | BIT(MS_EP_SCORE);
    add_plugin(&fx->pc, "FakeA", eps, 2);
    uint32_t b = add_plugin(&fx->pc, "FakeB", eps, 0);
    add_plugin(&fx->pc, "FakeNorm", eps, 3);
    start(fx);
    fakes[FA].scores[0] = 10, fakes[FA].scores[1] = 100, fakes[FA].scores[2] = 0;
    fakes[FB].scores[0] = 50, fakes[FB].scores[1] = 50, fakes[FB].scores[2] = 50;
    /* 0..40 normalized to 0..100 by the max */
    fakes[FNORM].scores[0] = 40, fakes[FNORM].scores[1] = 10, fakes[FNORM].scores[2] = 0;
    fakes[FB].pre_score = MS_SKIP;
    ms_node_info n0 = {0}, n1 = {0}, n2 = {0};
    ms_node_info *const nodes[] = {&n0, &n1, &n2};
    ms_status st;
    assert_int_equal(ms_framework_run_pre_score(&fx->fw, &fx->c, nodes, 3, &st), MS_SUCCESS);
    assert_int_equal(fx->c.skip_score, 1ull << b);
    int64_t totals[3], per[9];
    /* Neither the totals nor the rows are expected to be cleared before. */
    memset(totals, 0xff, sizeof totals);
    memset(per, 0xff, sizeof per);
    assert_int_equal(ms_framework_run_score(&fx->fw, &fx->c, nodes, 3, totals, per, &st), MS_SUCCESS);
    assert_string_equal(calls, "A.preScore B.preScore N.preScore A.score N.score N.normalize");
    /* The skipped plugin's row is left unwritten, and said to be skipped. */
    int64_t want_per[9] = {20, 200, 0, -1, -1, -1, 300, 75, 0};
    for (int i = 0; i < 9; i++) assert_int_equal(per[i], want_per[i]);
    assert_false(ms_framework_score_skipped(&fx->fw, &fx->c, 0));
    assert_true(ms_framework_score_skipped(&fx->fw, &fx->c, 1));
    assert_false(ms_framework_score_skipped(&fx->fw, &fx->c, 2));
    ms_framework_clear_skipped_scores(&fx->fw, &fx->c, per, 3);
    want_per[3] = want_per[4] = want_per[5] = 0;
    for (int i = 0; i < 9; i++) assert_int_equal(per[i], want_per[i]);
    assert_int_equal(totals[0], 320);
    assert_int_equal(totals[1], 275);
    assert_int_equal(totals[2], 0);
    /* Without the per-plugin rows the totals are the same. */
    int64_t totals2[3];
    memset(totals2, 0xff, sizeof totals2);
    assert_int_equal(ms_framework_run_score(&fx->fw, &fx->c, nodes, 3, totals2, NULL, &st), MS_SUCCESS);
    assert_memory_equal(totals, totals2, sizeof totals);
    assert_int_equal(wrong_current, 0);

    /* Every plugin skipped: the totals are all 0. */
    fakes[FA].pre_score = fakes[FNORM].pre_score = MS_SKIP;
    assert_int_equal(ms_framework_run_pre_score(&fx->fw, &fx->c, nodes, 3, &st), MS_SUCCESS);
    memset(totals2, 0xff, sizeof totals2);
    assert_int_equal(ms_framework_run_score(&fx->fw, &fx->c, nodes, 3, totals2, NULL, &st), MS_SUCCESS);
    for (int i = 0; i < 3; i++) assert_int_equal(totals2[i], 0);
    fakes[FA].pre_score = fakes[FNORM].pre_score = MS_SUCCESS;

    /* A PreScore failure is an error, whatever its code. */
    fakes[FNORM].pre_score = MS_UNSCHEDULABLE;
    assert_int_equal(ms_framework_run_pre_score(&fx->fw, &fx->c, nodes, 3, &st), MS_ERROR);
    assert_int_equal(st.code, MS_ERROR);
    assert_int_equal(st.plugin, (int)fakes[FNORM].index);
    ms_framework_destroy(&fx->fw);
}

static void test_score_range_is_checked_after_normalize(void **state) {
    fixture *fx = *state;
    uint32_t a = add_plugin(&fx->pc, "FakeA", BIT(MS_EP_SCORE), 1);
    add_plugin(&fx->pc, "FakeNorm", BIT(MS_EP_SCORE), 1);
    start(fx);
    ms_node_info n0 = {0}, n1 = {0};
    ms_node_info *const nodes[] = {&n0, &n1};
    int64_t totals[2];
    ms_status st;
    static const int64_t bad[] = {101, -1};
    for (int k = 0; k < 2; k++) {
        fakes[FA].scores[0] = 5;
        fakes[FA].scores[1] = bad[k];
        assert_int_equal(ms_framework_run_score(&fx->fw, &fx->c, nodes, 2, totals, NULL, &st), MS_ERROR);
        assert_int_equal(st.plugin, (int)a);
        assert_int_equal(st.nreasons, 1);
    }
    /* A raw score above 100 is fine when NormalizeScore brings it in range. */
    fakes[FA].scores[1] = 100;
    fakes[FNORM].scores[0] = 1000, fakes[FNORM].scores[1] = 500;
    assert_int_equal(ms_framework_run_score(&fx->fw, &fx->c, nodes, 2, totals, NULL, &st), MS_SUCCESS);
    assert_int_equal(totals[0], 105);
    assert_int_equal(totals[1], 150);
    /* Score and NormalizeScore failures are errors naming the plugin. */
    fakes[FNORM].normalize = MS_UNSCHEDULABLE;
    assert_int_equal(ms_framework_run_score(&fx->fw, &fx->c, nodes, 2, totals, NULL, &st), MS_ERROR);
    assert_int_equal(st.plugin, (int)fakes[FNORM].index);
    fakes[FNORM].normalize = MS_SUCCESS;
    fakes[FA].score = MS_UNSCHEDULABLE;
    assert_int_equal(ms_framework_run_score(&fx->fw, &fx->c, nodes, 2, totals, NULL, &st), MS_ERROR);
    assert_int_equal(st.plugin, (int)a);
    ms_framework_destroy(&fx->fw);
}

static void test_reserve_failure_unreserves_in_reverse(void **state) {
    fixture *fx = *state;
    add_plugin(&fx->pc, "FakeA", BIT(MS_EP_RESERVE), 0);
    uint32_t b = add_plugin(&fx->pc, "FakeB", BIT(MS_EP_RESERVE), 0);
    add_plugin(&fx->pc, "FakeC", BIT(MS_EP_RESERVE), 0);
    start(fx);
    ms_status st;
    assert_int_equal(ms_framework_run_reserve(&fx->fw, &fx->c, 7, &st), MS_SUCCESS);
    assert_string_equal(calls, "A.reserve B.reserve C.reserve");
    calls[0] = '\0';
    ms_framework_run_unreserve(&fx->fw, &fx->c, 7);
    assert_string_equal(calls, "C.unreserve B.unreserve A.unreserve");

    calls[0] = '\0';
    fakes[FB].reserve = MS_UNSCHEDULABLE;
    assert_int_equal(ms_framework_run_reserve(&fx->fw, &fx->c, 7, &st), MS_UNSCHEDULABLE);
    assert_int_equal(st.plugin, (int)b);
    assert_string_equal(calls, "A.reserve B.reserve C.unreserve B.unreserve A.unreserve");
    calls[0] = '\0';
    fakes[FB].reserve = MS_SKIP;
    assert_int_equal(ms_framework_run_reserve(&fx->fw, &fx->c, 7, &st), MS_ERROR);
    assert_int_equal(wrong_current, 0);
    ms_framework_destroy(&fx->fw);
}

static void test_permit_waits_for_the_smallest_timeout(void **state) {
    fixture *fx = *state;
    add_plugin(&fx->pc, "FakeA", BIT(MS_EP_PERMIT), 0);
    add_plugin(&fx->pc, "FakeB", BIT(MS_EP_PERMIT), 0);
    uint32_t c = add_plugin(&fx->pc, "FakeC", BIT(MS_EP_PERMIT), 0);
    start(fx);
    ms_status st;
    double timeout = -1;
    assert_int_equal(ms_framework_run_permit(&fx->fw, &fx->c, 3, &timeout, &st), MS_SUCCESS);
    assert_true(timeout == 0);
    fakes[FA].permit = MS_WAIT, fakes[FA].permit_timeout = 30;
    fakes[FB].permit = MS_WAIT, fakes[FB].permit_timeout = 10;
    assert_int_equal(ms_framework_run_permit(&fx->fw, &fx->c, 3, &timeout, &st), MS_WAIT);
    assert_true(timeout == 10);
    assert_int_equal(st.code, MS_WAIT);
    /* Capped at upstream's 15 minutes. */
    fakes[FA].permit_timeout = 3600, fakes[FB].permit_timeout = 7200;
    assert_int_equal(ms_framework_run_permit(&fx->fw, &fx->c, 3, &timeout, &st), MS_WAIT);
    assert_true(timeout == 900);
    /* A rejection after a wait wins. */
    calls[0] = '\0';
    fakes[FC].permit = MS_UNSCHEDULABLE;
    assert_int_equal(ms_framework_run_permit(&fx->fw, &fx->c, 3, &timeout, &st), MS_UNSCHEDULABLE);
    assert_int_equal(st.plugin, (int)c);
    assert_string_equal(calls, "A.permit B.permit C.permit");
    fakes[FC].permit = MS_SKIP;
    assert_int_equal(ms_framework_run_permit(&fx->fw, &fx->c, 3, &timeout, &st), MS_ERROR);
    assert_int_equal(wrong_current, 0);
    ms_framework_destroy(&fx->fw);
}

static void test_bind_chain_and_pre_post_bind(void **state) {
    fixture *fx = *state;
    uint32_t eps = BIT(MS_EP_PRE_BIND) | BIT(MS_EP_BIND) | BIT(MS_EP_POST_BIND);
    add_plugin(&fx->pc, "FakeA", eps, 0);
    uint32_t b = add_plugin(&fx->pc, "FakeB", eps, 0);
    add_plugin(&fx->pc, "FakeC", eps, 0);
    start(fx);
    ms_status st;
    fakes[FA].bind = MS_SKIP;
    ms_cycle c = {.pod = fx->pod};
    uint32_t next = 0;
    double timeout = 0;
    assert_int_equal(ms_framework_run_pre_bind(&fx->fw, &c, 3, &next, &timeout, &st), MS_SUCCESS);
    assert_int_equal(next, 3);
    assert_int_equal(ms_framework_run_bind(&fx->fw, fx->pod, 3, &st), MS_SUCCESS);
    assert_int_equal(st.plugin, (int)b);
    ms_framework_run_post_bind(&fx->fw, fx->pod, 3);
    assert_string_equal(calls, "A.preBind B.preBind C.preBind A.bind B.bind "
                               "A.postBind B.postBind C.postBind");

    calls[0] = '\0';
    fakes[FB].bind = MS_SKIP, fakes[FC].bind = MS_SKIP;
    assert_int_equal(ms_framework_run_bind(&fx->fw, fx->pod, 3, &st), MS_SKIP);
    assert_string_equal(calls, "A.bind B.bind C.bind");
    fakes[FB].bind = MS_UNSCHEDULABLE;
    assert_int_equal(ms_framework_run_bind(&fx->fw, fx->pod, 3, &st), MS_UNSCHEDULABLE);
    assert_int_equal(st.plugin, (int)b);
    fakes[FB].bind = MS_WAIT;
    assert_int_equal(ms_framework_run_bind(&fx->fw, fx->pod, 3, &st), MS_ERROR);

    calls[0] = '\0';
    fakes[FB].pre_bind = MS_WAIT;
    next = 0;
    assert_int_equal(ms_framework_run_pre_bind(&fx->fw, &c, 3, &next, &timeout, &st), MS_WAIT);
    assert_int_equal(next, 1);
    assert_int_equal(st.plugin, (int)b);
    calls[0] = '\0';
    fakes[FB].pre_bind = MS_SUCCESS;
    assert_int_equal(ms_framework_run_pre_bind(&fx->fw, &c, 3, &next, &timeout, &st), MS_SUCCESS);
    assert_string_equal(calls, "B.preBind C.preBind");

    calls[0] = '\0';
    fakes[FB].pre_bind = MS_ERROR;
    next = 0;
    assert_int_equal(ms_framework_run_pre_bind(&fx->fw, &c, 3, &next, &timeout, &st), MS_ERROR);
    assert_int_equal(st.plugin, (int)b);
    assert_string_equal(calls, "A.preBind B.preBind");
    ms_framework_destroy(&fx->fw);
}

static ms_rc record_bind(void *ctx, const ms_pod *pod, ms_str node) {
    (void)pod;
    *(ms_str *)ctx = node;
    return node == 99 ? MS_EIO : MS_OK;
}

static void test_default_binder_uses_the_handle(void **state) {
    fixture *fx = *state;
    ms_str bound = 0;
    fx->h.bind = record_bind;
    fx->h.bind_ctx = &bound;
    start(fx);
    ms_status st;
    assert_int_equal(ms_framework_run_bind(&fx->fw, fx->pod, 42, &st), MS_SUCCESS);
    assert_int_equal(bound, 42);
    assert_int_equal(ms_framework_run_bind(&fx->fw, fx->pod, 99, &st), MS_ERROR);
    assert_string_equal(st.reasons[0], "i/o error");
    fx->h.bind = NULL;
    assert_int_equal(ms_framework_run_bind(&fx->fw, fx->pod, 42, &st), MS_ERROR);
    ms_framework_destroy(&fx->fw);
}

static void test_post_filter(void **state) {
    fixture *fx = *state;
    uint32_t a = add_plugin(&fx->pc, "FakeA", BIT(MS_EP_POST_FILTER), 0);
    uint32_t b = add_plugin(&fx->pc, "FakeB", BIT(MS_EP_POST_FILTER), 0);
    start(fx);
    ms_status st;
    ms_str nominated = 5;
    /* Unschedulable: go on to the next plugin, keep every reason and the
     * first rejecting plugin. */
    fakes[FA].post_filter = MS_UNSCHEDULABLE;
    fakes[FA].reason = "No preemption victims found for incoming pod";
    fakes[FB].post_filter = MS_UNSCHEDULABLE;
    fakes[FB].reason = "other";
    assert_int_equal(ms_framework_run_post_filter(&fx->fw, &fx->c, NULL, &nominated, &st),
                     MS_UNSCHEDULABLE);
    assert_int_equal(nominated, MS_STR_NONE);
    assert_int_equal(st.plugin, (int)a);
    assert_int_equal(st.nreasons, 2);
    assert_string_equal(st.reasons[1], "other");
    /* The first success decides. */
    calls[0] = '\0';
    fakes[FB].post_filter = MS_SUCCESS;
    fakes[FB].nominate = 17;
    assert_int_equal(ms_framework_run_post_filter(&fx->fw, &fx->c, NULL, &nominated, &st), MS_SUCCESS);
    assert_int_equal(nominated, 17);
    assert_int_equal(st.plugin, (int)b);
    assert_string_equal(calls, "A.postFilter B.postFilter");
    /* UnschedulableAndUnresolvable stops at once. */
    calls[0] = '\0';
    fakes[FA].post_filter = MS_UNSCHEDULABLE_AND_UNRESOLVABLE;
    assert_int_equal(ms_framework_run_post_filter(&fx->fw, &fx->c, NULL, &nominated, &st),
                     MS_UNSCHEDULABLE_AND_UNRESOLVABLE);
    assert_string_equal(calls, "A.postFilter");
    assert_int_equal(nominated, MS_STR_NONE);
    fakes[FA].post_filter = MS_WAIT;
    assert_int_equal(ms_framework_run_post_filter(&fx->fw, &fx->c, NULL, &nominated, &st), MS_ERROR);
    assert_int_equal(wrong_current, 0);
    ms_framework_destroy(&fx->fw);
}

static void test_queue_sort_pre_enqueue_and_interest(void **state) {
    fixture *fx = *state;
    /* Replace PrioritySort with FakeA's reversed order. */
    fx->pc.plugins[0].points = 0;
    fx->pc.norder[MS_EP_QUEUE_SORT] = 0;
    uint32_t a = add_plugin(&fx->pc, "FakeA", BIT(MS_EP_QUEUE_SORT) | BIT(MS_EP_PRE_ENQUEUE), 0);
    uint32_t b = add_plugin(&fx->pc, "FakeB", BIT(MS_EP_PRE_ENQUEUE), 0);
    uint32_t c = add_plugin(&fx->pc, "FakeC", BIT(MS_EP_FILTER), 0);
    uint32_t n = add_plugin(&fx->pc, "FakeNorm", BIT(MS_EP_FILTER), 0);
    start(fx);
    ms_queued_pod q1 = {.pod = fx->pod, .seq = 1}, q2 = {.pod = fx->pod, .seq = 2};
    assert_true(ms_framework_less(&fx->fw, &q2, &q1));
    assert_false(ms_framework_less(&fx->fw, &q1, &q2));

    const char *reason = NULL;
    int32_t plugin = 7;
    assert_true(ms_framework_pre_enqueue(&fx->fw, fx->pod, &reason, &plugin));
    assert_null(reason);
    assert_int_equal(plugin, -1);
    fakes[FA].pre_enqueue_ok = false;
    fakes[FA].reason = "waiting for a gate";
    calls[0] = '\0';
    assert_false(ms_framework_pre_enqueue(&fx->fw, fx->pod, &reason, &plugin));
    assert_string_equal(reason, "waiting for a gate");
    assert_int_equal(plugin, (int32_t)a);
    assert_string_equal(calls, "A.preEnqueue");
    assert_false(ms_framework_pre_enqueue(&fx->fw, fx->pod, NULL, NULL));

    const ms_framework *fw = &fx->fw;
    assert_int_equal(ms_framework_interest(fw, 1ull << a), MS_EV_NODE_ADD);
    assert_int_equal(ms_framework_interest(fw, 1ull << a | 1ull << b),
                     MS_EV_NODE_ADD | MS_EV_NODE_TAINT | MS_EV_NODE_LABEL);
    assert_int_equal(ms_framework_interest(fw, 1ull << n), MS_EV_ASSIGNED_POD_DELETE);
    /* No declared events: every event; no rejecting plugin: every event. */
    assert_int_equal(ms_framework_interest(fw, 1ull << c), MS_EV_ALL);
    assert_int_equal(ms_framework_interest(fw, 0), MS_EV_ALL);

    /* Queueing hints: only the rejecting plugins that registered the
     * event are asked; one saying yes is enough. */
    assert_true(ms_framework_queueing_hint(fw, 1ull << a, fx->pod, MS_EV_NODE_ADD, NULL, NULL));
    fakes[FA].helps = false;
    assert_false(ms_framework_queueing_hint(fw, 1ull << a, fx->pod, MS_EV_NODE_ADD, NULL, NULL));
    assert_false(ms_framework_queueing_hint(fw, 1ull << a | 1ull << b, fx->pod, MS_EV_NODE_ADD, NULL, NULL));
    assert_true(ms_framework_queueing_hint(fw, 1ull << a | 1ull << b, fx->pod, MS_EV_NODE_LABEL, NULL, NULL));
    assert_true(ms_framework_queueing_hint(fw, 1ull << a | 1ull << c, fx->pod, MS_EV_NODE_ADD, NULL, NULL));
    assert_true(ms_framework_queueing_hint(fw, 0, fx->pod, MS_EV_NODE_ADD, NULL, NULL));
    ms_framework_destroy(&fx->fw);
}

static void test_priority_sort_through_the_framework(void **state) {
    fixture *fx = *state;
    start(fx);
    ms_pod *hi = ms_pod_alloc();
    hi->priority = 10;
    ms_queued_pod a = {.pod = fx->pod, .timestamp = 1}, b = {.pod = hi, .timestamp = 2};
    assert_true(ms_framework_less(&fx->fw, &b, &a));
    assert_false(ms_framework_less(&fx->fw, &a, &b));
    ms_pod_unref(hi);
    ms_framework_destroy(&fx->fw);
}

/* Without a nominator the nominated-pods variant is plain Filter. */
static void test_filter_with_nominated_without_queue(void **state) {
    fixture *fx = *state;
    uint32_t a = add_plugin(&fx->pc, "FakeA", BIT(MS_EP_FILTER), 0);
    start(fx);
    ms_node_info ni = {0};
    ms_status st;
    assert_int_equal(ms_framework_run_filter_with_nominated(&fx->fw, &fx->c, &ni, &st), MS_SUCCESS);
    fakes[FA].filter = MS_UNSCHEDULABLE;
    assert_int_equal(ms_framework_run_filter_with_nominated(&fx->fw, &fx->c, &ni, &st), MS_UNSCHEDULABLE);
    assert_int_equal(st.plugin, (int)a);
    assert_string_equal(calls, "A.filter A.filter");
    ms_framework_destroy(&fx->fw);
}

static ms_pod *pod_prio(uint64_t uid, int32_t priority) {
    ms_pod *p = ms_pod_alloc();
    p->meta.uid_hash = uid;
    p->priority = priority;
    return p;
}

/* Upstream's two passes: with the nominated pods of at least the pod's
 * priority added (never the pod itself), then without them. */
static void test_filter_with_nominated_pods(void **state) {
    fixture *fx = *state;
    add_plugin(&fx->pc, "CountPods", BIT(MS_EP_FILTER), 0);
    ms_queue_config qc;
    ms_queue_config_default(&qc);
    fx->h.queue = ms_queue_new(&qc);
    start(fx);
    ms_str n1 = ms_intern_cstr(fx->in, "n1"), n2 = ms_intern_cstr(fx->in, "n2");
    ms_node *node = ms_node_alloc();
    node->meta.name = n1;
    ms_node_info *ni = ms_node_info_new(n1);
    ms_node_info_set_node(ni, node);
    fx->pod->meta.uid_hash = 1;
    fx->pod->priority = 5;
    fakes[FA].scores[0] = 10;
    ms_status st;

    /* Nothing nominated: one pass. */
    assert_int_equal(ms_framework_run_filter_with_nominated(&fx->fw, &fx->c, ni, &st), MS_SUCCESS);
    assert_string_equal(calls, "npods=0");

    /* Only lower priority pods and the pod itself: still one pass. */
    ms_pod *lo = pod_prio(3, 4), *hi = pod_prio(2, 5), *other = pod_prio(4, 100);
    ms_queue_add_nominated(fx->h.queue, lo, n1);
    ms_queue_add_nominated(fx->h.queue, fx->pod, n1);
    ms_queue_add_nominated(fx->h.queue, other, n2);
    calls[0] = '\0';
    assert_int_equal(ms_framework_run_filter_with_nominated(&fx->fw, &fx->c, ni, &st), MS_SUCCESS);
    assert_string_equal(calls, "npods=0");

    /* An equal priority pod: it is added for the first pass only. */
    ms_queue_add_nominated(fx->h.queue, hi, n1);
    calls[0] = '\0';
    assert_int_equal(ms_framework_run_filter_with_nominated(&fx->fw, &fx->c, ni, &st), MS_SUCCESS);
    assert_string_equal(calls, "npods=1 npods=0");
    assert_int_equal(ni->npods, 0);

    /* Failing with them added is final. */
    fakes[FA].scores[0] = 0;
    calls[0] = '\0';
    assert_int_equal(ms_framework_run_filter_with_nominated(&fx->fw, &fx->c, ni, &st), MS_UNSCHEDULABLE);
    assert_string_equal(calls, "npods=1");
    assert_string_equal(st.reasons[0], "too many pods");

    /* The scratch NodeInfo is required once a pass with pods is needed. */
    ms_node_info *scratch = fx->h.scratch;
    fx->h.scratch = NULL;
    assert_int_equal(ms_framework_run_filter_with_nominated(&fx->fw, &fx->c, ni, &st), MS_ERROR);
    fx->h.scratch = scratch;

    ms_pod_unref(lo);
    ms_pod_unref(hi);
    ms_pod_unref(other);
    ms_node_unref(node);
    ms_node_info_free(ni);
    ms_queue_free(fx->h.queue);
    fx->h.queue = NULL;
    ms_framework_destroy(&fx->fw);
}

/* With only Filter plugins that read the node, its pod count and its
 * requests, the pass with nominated pods makes no copy of the NodeInfo
 * (no scratch is needed) and decides as the copy does: the same profile
 * with CountPods (which reads the pods, never rejecting here) takes the
 * copy. Random nodes, bound pods and nominees. */
static void test_filter_with_nominated_without_copy(void **state) {
    fixture *fx = *state;
    add_plugin(&fx->pc, "NodeUnschedulable", BIT(MS_EP_FILTER), 0);
    add_plugin(&fx->pc, "NodeResourcesFit", BIT(MS_EP_PRE_FILTER) | BIT(MS_EP_FILTER), 0);
    ms_profile_config *pc2 = malloc(sizeof *pc2);
    *pc2 = fx->pc;
    add_plugin(pc2, "CountPods", BIT(MS_EP_FILTER), 0);
    add_plugin(pc2, "DefaultBinder", BIT(MS_EP_BIND), 0);
    fakes[FA].scores[0] = 1000;
    ms_queue_config qc;
    ms_queue_config_default(&qc);
    fx->h.queue = ms_queue_new(&qc);
    start(fx);
    ms_error err = {0};
    ms_framework fw2;
    if (ms_framework_init_with(&fw2, pc2, 50, &fx->h, out_of_tree, NOOT, &err) != MS_OK)
        fail_msg("init: %s", err.msg);
    ms_cycle c2 = fx->c;
    assert_int_equal(ms_framework_begin_cycle(&fw2, &c2), MS_OK);
    fx->pod->meta.uid_hash = 1;
    fx->pod->priority = 5;
    fx->pod->requests.v[MS_RES_CPU] = 500;
    fx->pod->requests.v[MS_RES_MEMORY] = 1000;
    ms_status st, st2;
    assert_int_equal(ms_framework_run_pre_filter(&fx->fw, &fx->c, &st), MS_SUCCESS);
    assert_int_equal(ms_framework_run_pre_filter(&fw2, &c2, &st2), MS_SUCCESS);
    ms_node_info *scratch = fx->h.scratch;

    enum { NODES = 300 };
    ms_pod *pods[NODES * 8];
    uint32_t npods = 0, seed = 12345, yielded = 0, rejected = 0;
#define RND(m) ((seed = seed * 1103515245u + 12345u) >> 8) % (m)
    for (int k = 0; k < NODES; k++) {
        char name[16];
        snprintf(name, sizeof name, "n%d", k);
        ms_str nn = ms_intern_cstr(fx->in, name);
        ms_node *node = ms_node_alloc();
        node->meta.name = nn;
        node->unschedulable = RND(10) == 0;
        node->allocatable.v[MS_RES_CPU] = 400 + RND(3000);
        node->allocatable.v[MS_RES_MEMORY] = 900 + RND(5000);
        node->allocatable.v[MS_RES_PODS] = 1 + RND(6);
        ms_node_info *ni = ms_node_info_new(nn);
        ms_node_info_set_node(ni, node);
        for (uint32_t b = RND(3); b > 0; b--) {
            ms_pod *p = pods[npods] = pod_prio(100 + npods, 0);
            npods++;
            p->requests.v[MS_RES_CPU] = RND(1000);
            p->requests.v[MS_RES_MEMORY] = RND(2000);
            assert_int_equal(ms_node_info_add_pod(ni, p, fx->in), 0);
        }
        for (uint32_t m = RND(4); m > 0; m--) {
            ms_pod *p = pods[npods] = pod_prio(100 + npods, 3 + (int32_t)RND(5));
            npods++;
            p->requests.v[MS_RES_CPU] = RND(1000);
            p->requests.v[MS_RES_MEMORY] = RND(2000);
            ms_queue_add_nominated(fx->h.queue, p, nn);
            yielded += p->priority >= 5;
        }
        fx->h.scratch = NULL;
        ms_code got = ms_framework_run_filter_with_nominated(&fx->fw, &fx->c, ni, &st);
        fx->h.scratch = scratch;
        ms_code want = ms_framework_run_filter_with_nominated(&fw2, &c2, ni, &st2);
        assert_int_equal(got, want);
        assert_int_equal(st.code, st2.code);
        rejected += got != MS_SUCCESS;
        if (got != MS_SUCCESS) {
            assert_int_equal(st.plugin, st2.plugin);
            assert_int_equal(st.nreasons, st2.nreasons);
            for (uint32_t r = 0; r < st.nreasons; r++) assert_string_equal(st.reasons[r], st2.reasons[r]);
        }
        ms_node_unref(node);
        ms_node_info_free(ni);
    }
#undef RND
    /* The draws put nominees of both kinds on nodes that fit and do not. */
    assert_true(yielded > 100 && rejected > 50 && rejected < NODES - 50);
    ms_queue_free(fx->h.queue);
    fx->h.queue = NULL;
    for (uint32_t i = 0; i < npods; i++) ms_pod_unref(pods[i]);
    ms_framework_destroy(&fw2);
    ms_framework_destroy(&fx->fw);
    free(pc2);
}

static void expect_order(const ms_framework *fw, ms_extension_point ep, const char *want) {
    char got[512] = "";
    for (uint32_t k = 0; k < fw->norder[ep]; k++) {
        size_t n = strlen(got);
        snprintf(got + n, sizeof got - n, "%s%s", k ? " " : "", fw->plugins[fw->order[ep][k]].ops->name);
    }
    assert_string_equal(got, want);
}

/* Upstream's default profile, through the real configuration: every point
 * gets the plugins that implement it, in upstream's order, with its weights. */
static void test_default_profile(void **state) {
    fixture *fx = *state;
    ms_profile_config_default(&fx->pc, "default-scheduler");
    ms_error err = {0};
    ms_framework fw;
    if (ms_framework_init(&fw, &fx->pc, 0, &fx->h, &err) != MS_OK) fail_msg("%s", err.msg);
    expect_order(&fw, MS_EP_QUEUE_SORT, "PrioritySort");
    expect_order(&fw, MS_EP_PRE_ENQUEUE, "SchedulingGates DynamicResources");
    expect_order(&fw, MS_EP_FILTER, "NodeUnschedulable NodeName TaintToleration NodeAffinity "
                                    "NodePorts NodeResourcesFit VolumeRestrictions NodeVolumeLimits "
                                    "VolumeBinding VolumeZone PodTopologySpread InterPodAffinity "
                                    "DynamicResources");
    expect_order(&fw, MS_EP_SCORE, "TaintToleration NodeAffinity NodeResourcesFit PodTopologySpread "
                                   "InterPodAffinity NodeResourcesBalancedAllocation ImageLocality");
    expect_order(&fw, MS_EP_POST_FILTER, "DynamicResources DefaultPreemption");
    expect_order(&fw, MS_EP_BIND, "DefaultBinder");
    expect_order(&fw, MS_EP_RESERVE, "VolumeBinding DynamicResources");
    expect_order(&fw, MS_EP_PRE_BIND, "VolumeBinding DynamicResources");
    static const int32_t weights[] = {3, 2, 1, 2, 2, 1, 1};
    for (uint32_t k = 0; k < ms_framework_nscore(&fw); k++)
        assert_int_equal(fw.plugins[fw.order[MS_EP_SCORE][k]].weight, weights[k]);
    ms_framework_destroy(&fw);
}

/* Decoded objects through upstream's default profile: each node is rejected
 * by the plugin upstream would name, and the FitError message says so. */
static void test_default_profile_on_decoded_objects(void **state) {
    (void)state;
    fx_env env;
    fx_env_init(&env);
    ms_resource_names rn;
    ms_resource_names_init(&rn, env.in);
    ms_handle h = {.in = env.in, .rn = &rn, .wildcard_ip = ms_intern_cstr(env.in, "0.0.0.0")};
    ms_profile_config pc;
    ms_profile_config_default(&pc, "default-scheduler");
    ms_framework fw;
    ms_error err = {0};
    if (ms_framework_init(&fw, &pc, 0, &h, &err) != MS_OK) fail_msg("%s", err.msg);

    static const char *const nodes[] = {
        "metadata: {name: n1}\nspec: {taints: [{key: dedicated, value: a, effect: NoSchedule}]}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}",
        "metadata: {name: n2}\nspec: {unschedulable: true}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}",
        "metadata: {name: n3}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}",
        "metadata: {name: n4}\nspec: {taints: [{key: soft, effect: PreferNoSchedule}]}\n"
        "status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}",
    };
    ms_node_info *ni[4];
    ms_node *nd[4];
    for (int i = 0; i < 4; i++) {
        nd[i] = fx_node(&env.d, nodes[i]);
        ni[i] = ms_node_info_new(nd[i]->meta.name);
        ms_node_info_set_node(ni[i], nd[i]);
    }
    ms_pod *web = fx_pod(&env.d, "metadata: {name: web, uid: u1}\nspec: {nodeName: n3, containers: "
                                 "[{name: c, ports: [{containerPort: 8080, hostPort: 80}]}]}");
    assert_int_equal(ms_node_info_add_pod(ni[2], web, env.in), 0);
    ms_pod *pod = fx_pod(&env.d, "metadata: {name: p, uid: u2}\nspec: {containers: "
                                 "[{name: c, ports: [{containerPort: 80, hostPort: 80}]}]}");

    ms_arena arena;
    ms_arena_init(&arena, 4096);
    ms_cycle c = {.pod = pod, .arena = &arena};
    assert_int_equal(ms_framework_begin_cycle(&fw, &c), MS_OK);
    ms_status st[4];
    assert_int_equal(ms_framework_run_pre_filter(&fw, &c, &st[0]), MS_SUCCESS);
    static const char *const rejected_by[] = {"TaintToleration", "NodeUnschedulable", "NodePorts", NULL};
    for (int i = 0; i < 4; i++) {
        ms_code code = ms_framework_run_filter(&fw, &c, ni[i], &st[i]);
        if (!rejected_by[i]) {
            assert_int_equal(code, MS_SUCCESS);
            continue;
        }
        assert_int_not_equal(code, MS_SUCCESS);
        assert_string_equal(ms_framework_plugin_name(&fw, st[i].plugin), rejected_by[i]);
    }
    char msg[512];
    ms_fit_error_message(msg, sizeof msg, 4, st, 3, NULL);
    assert_string_equal(msg, "0/4 nodes are available: 1 node(s) didn't have free ports for the "
                             "requested pod ports, 1 node(s) had untolerated taint {dedicated: a}, "
                             "1 node(s) were unschedulable.");

    ms_arena_free(&arena);
    ms_pod_unref(pod);
    ms_pod_unref(web);
    for (int i = 0; i < 4; i++) {
        ms_node_info_free(ni[i]);
        ms_node_unref(nd[i]);
    }
    ms_framework_destroy(&fw);
    fx_env_free(&env);
}

static void test_registry(void **state) {
    (void)state;
    static const char *names[] = {"PrioritySort", "NodeName", "NodeUnschedulable", "NodePorts",
                                  "TaintToleration", "NodeAffinity", "NodeResourcesFit",
                                  "PodTopologySpread", "NodeResourcesBalancedAllocation",
                                  "InterPodAffinity", "ImageLocality", "DefaultPreemption",
                                  "DefaultBinder", "VolumeRestrictions", "NodeVolumeLimits",
                                  "VolumeBinding", "VolumeZone", "SchedulingGates", "DynamicResources"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const ms_plugin_ops *o = ms_plugin_lookup(names[i]);
        assert_non_null(o);
        assert_string_equal(o->name, names[i]);
    }
    assert_null(ms_plugin_lookup("nodename"));
    uint32_t n = 0;
    while (ms_plugin_at(n)) n++;
    assert_int_equal(n, sizeof names / sizeof names[0]);
    for (uint32_t i = 0; i < n; i++) assert_ptr_equal(ms_plugin_lookup(ms_plugin_at(i)->name), ms_plugin_at(i));
}

/* upstream helper.DefaultNormalizeScore's table. */
static void test_default_normalize_score(void **state) {
    (void)state;
    static const struct {
        bool reverse;
        int64_t in[6], want[6];
    } cases[] = {
        {false, {10, 20, 30, 40, 50, 60}, {16, 33, 50, 66, 83, 100}},
        {true, {10, 20, 30, 40, 50, 60}, {84, 67, 50, 34, 17, 0}},
        {false, {0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}},
        {true, {0, 0, 0, 0, 0, 0}, {100, 100, 100, 100, 100, 100}},
        {false, {1000, 0, 500, 250, 0, 1}, {100, 0, 50, 25, 0, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t s[6];
        memcpy(s, cases[i].in, sizeof s);
        ms_default_normalize_score(MS_MAX_NODE_SCORE, cases[i].reverse, s, 6);
        assert_memory_equal(s, cases[i].want, sizeof s);
    }
}

int main(void) {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_init_resolves_points_and_weights),
        T(test_profile_percentage_overrides_global),
        T(test_init_errors),
        T(test_order_follows_config),
        T(test_filter_stops_at_first_failure),
        T(test_filter_plan),
        T(test_pre_filter_skip_and_rejection),
        T(test_score_weights_normalize_and_skip),
        T(test_score_range_is_checked_after_normalize),
        T(test_reserve_failure_unreserves_in_reverse),
        T(test_permit_waits_for_the_smallest_timeout),
        T(test_bind_chain_and_pre_post_bind),
        T(test_default_binder_uses_the_handle),
        T(test_post_filter),
        T(test_queue_sort_pre_enqueue_and_interest),
        T(test_priority_sort_through_the_framework),
        T(test_filter_with_nominated_without_queue),
        T(test_filter_with_nominated_pods),
        T(test_filter_with_nominated_without_copy),
        T(test_default_profile),
        cmocka_unit_test(test_default_profile_on_decoded_objects),
        cmocka_unit_test(test_registry),
        cmocka_unit_test(test_default_normalize_score),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
