/* `moonsched config check` pieces: Go duration text, the YAML writer (read
 * back by our YAML reader to the same document), and the effective
 * configuration of a file. */
#include "testutil.h"

#include <cjson/cJSON.h>
#include <unistd.h>

#include "moonsched/config.h"
#include "cmd/config_check.h"
#include "codec/yaml_write.h"
#include "scheduler/config_describe.h"
#include "moonsched/decode.h"

static void test_go_durations(void **state) {
    (void)state;
    static const struct {
        double s;
        const char *want;
    } cases[] = {
        {0, "0s"},          {1, "1s"},          {1.5, "1.5s"},        {15, "15s"},
        {90, "1m30s"},      {60, "1m0s"},       {3600, "1h0m0s"},     {3661.25, "1h1m1.25s"},
        {0.3, "300ms"},     {0.0015, "1.5ms"},  {2e-6, "2\xc2\xb5s"}, {5e-9, "5ns"},
        {-2, "-2s"},        {5, "5s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        ms_format_go_duration(cases[i].s, buf, sizeof buf);
        if (strcmp(buf, cases[i].want) != 0) fail_msg("%g s: got %s, want %s", cases[i].s, buf, cases[i].want);
        /* and Go's parser (ours) reads it back */
        double back = -1;
        assert_true(ms_parse_go_duration(buf, &back));
        assert_true(back > cases[i].s - 1e-9 && back < cases[i].s + 1e-9);
    }
}

static char *write_yaml(const cJSON *doc) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(ms_yaml_write(doc, false, f), MS_OK);
    fclose(f);
    return text;
}

static void test_yaml_round_trip(void **state) {
    (void)state;
    const char *json =
        "{\"plain\": \"value\", \"bool-like\": \"true\", \"yes\": \"no\", \"null-like\": \"null\","
        " \"number-like\": \"1e3\", \"octal-like\": \"0o17\", \"hex-like\": \"0x1F\", \"inf\": \".inf\","
        " \"empty\": \"\", \"colon\": \"a: b\", \"comment\": \"a #b\", \"dash\": \"- x\", \"star\": \"*\","
        " \"quote\": \"it's\", \"squote\": \"'x\", \"newline\": \"a\\nb\", \"tab\": \"a\\tb\", \"lead\": \" x\","
        " \"url\": \"http://127.0.0.1:8888/x\", \"neg\": \"-1\", \"word-dash\": \"-x\","
        " \"int\": 42, \"float\": 20.5, \"t\": true, \"f\": false, \"nothing\": null,"
        " \"obj\": {}, \"arr\": [], \"list\": [1, \"two\", {\"k\": \"v\", \"l\": [\"x\"]}, [\"nested\", 2], {}, []],"
        " \"map\": {\"inner\": {\"deep\": [ {\"name\": \"*\"} ]}}, \"key: odd\": 1, \"true\": \"key\"}";
    cJSON *doc = cJSON_Parse(json);
    assert_non_null(doc);
    char *text = write_yaml(doc);
    cJSON **docs = NULL;
    size_t n = 0;
    ms_error err;
    if (ms_yaml_parse(text, strlen(text), &docs, &n, &err) != MS_OK) fail_msg("%s\n%s", err.msg, text);
    assert_int_equal(n, 1);
    if (!cJSON_Compare(doc, docs[0], true)) {
        char *back = cJSON_Print(docs[0]);
        fail_msg("YAML:\n%s\nread back:\n%s", text, back);
    }
    /* a few exact lines */
    assert_int_equal(strncmp(text, "plain: value\n", 13), 0);
    assert_non_null(strstr(text, "\nbool-like: 'true'\n"));
    assert_non_null(strstr(text, "\nquote: it's\nsquote: '''x'\n"));
    assert_non_null(strstr(text, "\nnewline: \"a\\nb\"\n"));
    assert_non_null(strstr(text, "\nurl: http://127.0.0.1:8888/x\n"));
    assert_non_null(strstr(text, "\nobj: {}\narr: []\n"));
    assert_non_null(strstr(text, "\nlist:\n- 1\n- two\n- k: v\n  l:\n  - x\n- - nested\n  - 2\n- {}\n- []\n"));
    for (size_t i = 0; i < n; i++) cJSON_Delete(docs[i]);
    free(docs);
    free(text);
    cJSON_Delete(doc);
}

static void test_effective_configuration(void **state) {
    (void)state;
    const char *yaml = "apiVersion: kubescheduler.config.k8s.io/v1beta3\n"
                       "kind: KubeSchedulerConfiguration\n"
                       "podMaxBackoffSeconds: 30\n"
                       "leaderElection: {leaseDuration: 1m30s}\n"
                       "profiles:\n"
                       "- schedulerName: a\n"
                       "  plugins:\n"
                       "    multiPoint:\n"
                       "      disabled: [{name: NodePorts}]\n"
                       "    score:\n"
                       "      enabled: [{name: ImageLocality, weight: 4}]\n"
                       "  pluginConfig:\n"
                       "  - name: NodeResourcesFit\n"
                       "    args: {ignoredResources: [example.com/own]}\n"
                       "extenders:\n"
                       "- urlPrefix: http://127.0.0.1:1\n"
                       "  bindVerb: bind\n"
                       "  tlsConfig: {keyData: a2V5, certData: aGVsbG8=}\n"
                       "  managedResources: [{name: example.com/gpu, ignoredByScheduler: true}]\n";
    char path[] = "/tmp/test_config_check_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    cJSON *doc = NULL;
    ms_error err;
    if (ms_config_check(path, NULL, NULL, &doc, &err) != MS_OK) fail_msg("%s", err.msg);
    unlink(path);
    assert_string_equal(cJSON_GetObjectItem(doc, "apiVersion")->valuestring, "kubescheduler.config.k8s.io/v1");
    assert_int_equal(cJSON_GetObjectItem(doc, "podMaxBackoffSeconds")->valueint, 30);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "leaderElection"), "leaseDuration")->valuestring,
                        "1m30s");
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "profiles"), 0);
    const cJSON *plugins = cJSON_GetObjectItem(p, "plugins");
    /* NodePorts is gone everywhere; ImageLocality has its weight */
    char *text = cJSON_PrintUnformatted(plugins);
    assert_null(strstr(text, "NodePorts"));
    assert_non_null(strstr(text, "{\"name\":\"ImageLocality\",\"weight\":4}"));
    /* a plugin appears only where it implements the point */
    assert_null(strstr(strstr(text, "\"queueSort\""), "TaintToleration\"}],\"disabled\":[{\"name\":\"*\"}]},\"preFilter\""));
    free(text);
    const cJSON *filter = cJSON_GetObjectItem(cJSON_GetObjectItem(plugins, "filter"), "enabled");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(filter, 0), "name")->valuestring, "NodeUnschedulable");
    /* the extender's resources replace NodeResourcesFit's own (upstream) */
    const cJSON *pc = cJSON_GetArrayItem(cJSON_GetObjectItem(p, "pluginConfig"), 0);
    assert_string_equal(cJSON_GetObjectItem(pc, "name")->valuestring, "NodeResourcesFit");
    text = cJSON_PrintUnformatted(cJSON_GetObjectItem(pc, "args"));
    assert_string_equal(text, "{\"ignoredResources\":[\"example.com/gpu\"]}");
    free(text);
    const cJSON *ext = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "extenders"), 0);
    assert_string_equal(cJSON_GetObjectItem(ext, "httpTimeout")->valuestring, "5s");
    assert_string_equal(cJSON_GetObjectItem(ext, "bindVerb")->valuestring, "bind");
    assert_null(cJSON_GetObjectItem(ext, "filterVerb"));
    const cJSON *tls = cJSON_GetObjectItem(ext, "tlsConfig");
    assert_string_equal(cJSON_GetObjectItem(tls, "certData")->valuestring, "aGVsbG8=");
    assert_string_equal(cJSON_GetObjectItem(tls, "keyData")->valuestring, "<redacted: 3 bytes>");
    cJSON_Delete(doc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_go_durations),
        cmocka_unit_test(test_yaml_round_trip),
        cmocka_unit_test(test_effective_configuration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
