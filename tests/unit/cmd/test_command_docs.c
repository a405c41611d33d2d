/* The overview, completions and manual page made of a command table. */
#include "testutil.h"

#include "cmd/command_docs.h"

static const ms_command table[] = {
    {"run", "schedule", "usage: moonsched run [--x N] [--y]\n  --x N   the x; --x again\n", NULL},
    {"sim", "simulate", "usage: moonsched sim --z\n.dot\\back --not- -- --z\n", NULL},
    {"completion", "complete", "usage: moonsched completion bash|zsh|fish\n", NULL},
    {"version", "print the version", NULL, NULL},
};
#define N (sizeof table / sizeof table[0])

/* What w writes for the table, through a memory stream. */
typedef void (*writer)(FILE *out, const ms_command *c, size_t n);
static char *written(writer w) {
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    w(out, table, N);
    fclose(out);
    return text;
}

static void man_0_1(FILE *out, const ms_command *c, size_t n) { ms_man_page(out, "0.1", c, n); }

/* Each long flag once, in order; "--" alone and a name ending in "-" (a
 * word cut at a line's end, or prose) are none. */
static void test_help_flags(void **state) {
    (void)state;
    ms_help_flags f;
    ms_help_flags_of(table[1].help, &f);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.v[0], "--z");
    ms_help_flags_of(table[0].help, &f);
    assert_int_equal(f.n, 2);
    assert_string_equal(f.v[0], "--x");
    assert_string_equal(f.v[1], "--y");
}

static void test_overview(void **state) {
    (void)state;
    char *text = ms_command_overview(table, 2);
    assert_string_equal(text, "usage: moonsched [COMMAND] [FLAGS]\n\n"
                              "  run         schedule\n"
                              "  sim         simulate\n"
                              "\nRun 'moonsched COMMAND --help' for a command's flags; kube-scheduler's\n"
                              "flags follow (run's).\n\n");
    free(text);
}

/* Every command as a first word; each command's help's flags; run's
 * without a command; completion's shells, not its help's words. */
static void test_completion_bash(void **state) {
    (void)state;
    char *text = written(ms_completion_bash);
    assert_non_null(strstr(text, "compgen -W \"run sim completion version help\""));
    assert_non_null(strstr(text, "\n    run) flags=\"--x --y\";;\n"));
    assert_non_null(strstr(text, "\n    sim) flags=\"--z\";;\n"));
    assert_non_null(strstr(text, "\n    *) flags=\"--x --y\";;\n"));
    assert_non_null(strstr(text, "\n    completion) COMPREPLY=($(compgen -W \"bash zsh fish\""));
    assert_null(strstr(text, "completion) flags"));
    assert_null(strstr(text, "version) flags"));
    free(text);
}

static void test_completion_fish(void **state) {
    (void)state;
    char *text = written(ms_completion_fish);
    assert_non_null(strstr(text, "-f -a 'run sim completion version help'\n"));
    assert_non_null(strstr(text, "'__fish_seen_subcommand_from run' -l x\n"));
    assert_non_null(strstr(text, "'__fish_seen_subcommand_from run' -l y\n"));
    assert_non_null(strstr(text, "'__fish_seen_subcommand_from sim' -l z\n"));
    assert_null(strstr(text, "-l not"));
    free(text);
}

/* The help verbatim, with roff's requests and escapes neutralised; a
 * section per command with a help. */
static void test_man_page(void **state) {
    (void)state;
    char *text = written(man_0_1);
    assert_non_null(strstr(text, ".TH MOONSCHED 1 \"\" \"moonsched v0.1\" \"User Commands\"\n"));
    assert_non_null(strstr(text, ".SS sim\n.nf\nusage: moonsched sim \\-\\-z\n\\&.dot\\eback"));
    assert_non_null(strstr(text, "  run         schedule\n"));
    assert_null(strstr(text, ".SS version"));
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_flags),
        cmocka_unit_test(test_overview),
        cmocka_unit_test(test_completion_bash),
        cmocka_unit_test(test_completion_fish),
        cmocka_unit_test(test_man_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
