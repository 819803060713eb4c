/* Regression tests for the libsense bugs of issue 28 ("Hosts III"): names
 * that are not identifiers (keywords, "", "1bad") bound as globals or host
 * functions, a host function's failure lost because its message was not
 * UTF-8, and a global set before sense_runtime_restore silently dropped. */
#include "harness.h"

/* Bug 1: set_global and register_fn refuse every name a program could not
 * write: keywords, the empty name, a leading digit. */
static int test_keywords_are_not_globals(void) {
    HARNESS_RUNTIME(rt, out);
    sense_value *one = sense_value_new_int(1);
    const char *bad[] = {"if", "true", "nil", "def", "and", "agent", "", "1bad", "a-b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sense_error *err = NULL;
        CHECK_STATUS_ERR(sense_runtime_set_global(rt, bad[i], strlen(bad[i]), one, &err),
                         SENSE_STATUS_INVALID_ARGUMENT, err);
        CHECK(err != NULL);
        CHECK_CONTAINS(sense_error_message(err), "variable name");
        sense_error_free(err);
    }
    /* A program still reads `true` as the keyword. */
    CHECK_PRINTS(rt, out, "print(true, nil)\n", "true nil\n");
    CHECK_OK(sense_runtime_set_global(rt, "_ok2", 4, one, NULL));
    sense_value_free(one);
    sense_runtime_free(rt);
    return 0;
}

static int frees = 0;
static void count_free(void *user_data) {
    (void)user_data;
    frees++;
}
/* What seven() answers. */
static int64_t seven = 7;

static int test_host_function_names_are_identifiers(void) {
    HARNESS_RUNTIME(rt, out);
    const char *bad[] = {"", "1bad", "if", "while", "nil", "two words"};
    frees = 0;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sense_error *err = NULL;
        CHECK_ERROR_HAS(sense_runtime_register_fn(rt, bad[i], strlen(bad[i]), 0, harness_answer_int,
                                                  &seven, count_free, &err),
                        SENSE_STATUS_INVALID_ARGUMENT, err, "not a function name");
    }
    /* The user data of each refused registration was freed at once. */
    CHECK(frees == (int)(sizeof bad / sizeof bad[0]));
    /* Nothing was registered under "": calling it finds nothing. */
    sense_value *got = NULL;
    CHECK_STATUS(sense_runtime_call(rt, NULL, 0, NULL, 0, &got, NULL), SENSE_STATUS_NOT_FOUND);
    CHECK_OK(sense_runtime_register_fn(rt, "seven", 5, 0, harness_answer_int, &seven, NULL, NULL));
    CHECK_PRINTS(rt, out, "print(seven())\n", "7\n");
    sense_runtime_free(rt);
    return 0;
}

/* Bug 2: a failure whose message is Latin-1 ("caf\xe9 failed") reaches
 * Sense as an error with U+FFFD in place of the bad byte, not as nil. */
static void fail_latin1(void *user_data, sense_call *call) {
    (void)user_data;
    static const char msg[] = "caf\xe9 failed";
    sense_call_fail(call, msg, sizeof msg - 1, NULL);
}

static int test_a_non_utf8_failure_is_not_dropped(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(sense_runtime_register_fn(rt, "order", 5, 0, fail_latin1, NULL, NULL, NULL));
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, "x = order()\nprint(\"went on\", x)\n", &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_CONTAINS(sense_error_message(err), "caf\xef\xbf\xbd failed");
    CHECK_STR(sense_error_class(err), "SenseRuntimeError");
    sense_error_free(err);
    CHECK(out.len == 0);
    sense_runtime_free(rt);
    return 0;
}

/* Bug 3: a global set on a new runtime before restoring is kept (and wins
 * over the snapshot's value of that name). */
static int test_a_global_set_before_restore_is_kept(void) {
    HARNESS_PROGRAM(a, out, "limit = 1\nagent w:\n    pause()\n    print(limit, api_key)\n");
    sense_bytes *snap = NULL;
    CHECK_OK(sense_runtime_snapshot(a, &snap, NULL));
    sense_runtime_free(a);

    HARNESS_RUNTIME(b, out_b);
    sense_value *key = harness_string("k-123");
    sense_value *limit = sense_value_new_int(5);
    CHECK_OK(sense_runtime_set_global(b, "api_key", 7, key, NULL));
    CHECK_OK(sense_runtime_set_global(b, "limit", 5, limit, NULL));
    sense_value_free(key);
    sense_value_free(limit);
    CHECK_OK(sense_runtime_restore(b, sense_bytes_data(snap), sense_bytes_len(snap), NULL));
    sense_bytes_free(snap);

    CHECK(harness_check_global_string(b, "api_key", "k-123") == 0);
    sense_agent w;
    sense_agent_status st;
    CHECK(harness_start(b, "w", &w, SENSE_AGENT_STATUS_PAUSED) == 0);
    CHECK_OK(sense_agent_resume(b, w, NULL, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_COMPLETED);
    CHECK_STR(text_buf_view(&out_b), "5 k-123\n");
    sense_runtime_free(b);
    return 0;
}

HARNESS_MAIN(TEST(test_keywords_are_not_globals), TEST(test_host_function_names_are_identifiers),
             TEST(test_a_non_utf8_failure_is_not_dropped),
             TEST(test_a_global_set_before_restore_is_kept))
