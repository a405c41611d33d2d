/* Explain as text (core/simulate/explain_text.c): every part of the JSON
 * printed, in order, for a pending pod that preemption nominated. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "simulate/explain_text.h"

static const char doc[] =
    "{\"pod\":\"default/big\",\"state\":\"pending\",\"queue\":\"backoffQ\",\"nominatedNode\":\"n2\","
    "\"policyGeneration\":2,\"recordedCycles\":1024,"
    "\"lastCycle\":{\"cycle\":9,\"time\":\"2026-01-01T00:00:00.000000Z\",\"attempt\":1,\"profile\":\"default-scheduler\","
    "\"result\":\"Unschedulable\",\"message\":\"0/2 nodes are available: 2 Insufficient cpu.\","
    "\"preemption\":{\"nominatedNode\":\"n2\",\"candidates\":2,\"candidateNodes\":[{\"node\":\"n2\",\"victims\":1,"
    "\"pdbViolations\":0},{\"node\":\"n1\",\"victims\":2,\"pdbViolations\":1}],\"victims\":1,"
    "\"victimPods\":[\"default/low\"]},\"binding\":{\"result\":\"BindingFailed\",\"message\":\"conflict\"},"
    "\"policyGeneration\":1},"
    "\"recomputedNow\":{\"nodes\":2,\"feasibleNodes\":1,\"nodeResults\":["
    "{\"node\":\"n1\",\"filter\":{\"plugin\":\"NodeResourcesFit\",\"code\":\"Unschedulable\",\"reasons\":[\"Insufficient cpu\"]}},"
    "{\"node\":\"n2\",\"scores\":{\"NodeResourcesFit\":40,\"lua:spread\":100},\"total\":140}]},"
    "\"policies\":[{\"profile\":\"default-scheduler\",\"plugin\":\"lua:spread\",\"file\":\"spread.lua\",\"version\":3,"
    "\"disabled\":false}]}";

static const char want[] =
    "Pod default/big: pending (backoffQ), nominated to n2\n"
    "Last cycle: #9 at 2026-01-01T00:00:00.000000Z, attempt 1, profile default-scheduler\n"
    "  result: Unschedulable\n"
    "  message: 0/2 nodes are available: 2 Insufficient cpu.\n"
    "  preemption: nominated node n2; 2 candidate(s): n2 (1 victims, 0 PDB violations), n1 (2 victims, 1 PDB violations)\n"
    "  victims: 1: default/low\n"
    "  binding: BindingFailed: conflict\n"
    "  policies: reloaded since this cycle (generation 1 then, 2 now)\n"
    "Recomputed now, over the current snapshot (2 nodes, 1 feasible):\n"
    "  n1                       NodeResourcesFit: Unschedulable: Insufficient cpu\n"
    "  n2                       feasible, total 140: NodeResourcesFit 40, lua:spread 100\n"
    "Policies in effect:\n"
    "  lua:spread (profile default-scheduler, spread.lua): version 3\n";

static void test_print(void **state) {
    (void)state;
    cJSON *e = cJSON_Parse(doc);
    assert_non_null(e);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ms_explain_print(f, e);
    fclose(f);
    assert_string_equal(text, want);
    free(text);
    cJSON_Delete(e);
}

static void test_policies_none(void **state) {
    (void)state;
    cJSON *e = cJSON_CreateObject();
    ms_explain_add_policies(e, NULL);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(e, "policies")), 0);
    cJSON_Delete(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_print),
        cmocka_unit_test(test_policies_none),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
