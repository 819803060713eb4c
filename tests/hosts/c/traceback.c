/* sense_error_traceback (issue 28): the chain of Sense frames an error came
 * through, innermost last; through a host function's failure and an agent
 * failing after a resume; empty for syntax errors and for NULL. */
#include "harness.h"

static void host_refuse(void *user_data, sense_call *call) {
    (void)user_data;
    const char *msg = "refused by host";
    sense_call_fail(call, msg, strlen(msg), NULL);
}

/* Checks that the traceback of `err` is the usual heading and `frames`,
 * NUL-terminated; frees `err`. */
static int check_traceback(sense_error *err, const char *frames) {
    char want[512];
    snprintf(want, sizeof want, "stack traceback (most recent call last):\n%s", frames);
    sense_str tb = sense_error_traceback(err);
    CHECK_STR(tb, want);
    CHECK(tb.ptr[tb.len] == '\0');
    sense_error_free(err);
    return 0;
}

static int test_nested_calls_innermost_last(void) {
    HARNESS_RUNTIME(rt, out);
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt,
                                 "def inner(x):\n"
                                 "    return x / 0\n"
                                 "def outer(x):\n"
                                 "    return inner(x)\n"
                                 "outer(1)\n",
                                 &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK(check_traceback(err,
                          "  test.sns:5: in <main>\n"
                          "  test.sns:4: in outer\n"
                          "  test.sns:2: in inner\n") == 0);
    sense_runtime_free(rt);
    return 0;
}

static int test_host_function_failure_shows_its_callers(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(sense_runtime_register_fn(rt, "refuse", 6, 0, host_refuse, NULL, NULL, NULL));
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, "def go():\n    refuse()\ngo()\n", &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_CONTAINS(sense_error_message(err), "refused by host");
    CHECK(check_traceback(err,
                          "  test.sns:3: in <main>\n"
                          "  test.sns:2: in go\n") == 0);
    sense_runtime_free(rt);
    return 0;
}

static int test_agent_failing_on_resume(void) {
    HARNESS_PAUSED(rt, out,
                   "def check(v):\n"
                   "    return 1 / v\n"
                   "agent worker:\n"
                   "    got = pause(\"n?\")\n"
                   "    check(got)\n",
                   a, "worker");
    sense_agent_status status;
    sense_value *zero = sense_value_new_int(0);
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_agent_resume(rt, a, zero, &status, &err), SENSE_STATUS_RUNTIME_ERROR,
                     err);
    sense_value_free(zero);
    CHECK(check_traceback(err,
                          "  test.sns:5: in worker\n"
                          "  test.sns:2: in check\n") == 0);
    sense_runtime_free(rt);
    return 0;
}

static int test_empty_without_frames(void) {
    HARNESS_RUNTIME(rt, out);
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, "x = (\n", &err), SENSE_STATUS_SYNTAX_ERROR, err);
    sense_str tb = sense_error_traceback(err);
    CHECK(tb.len == 0 && tb.ptr != NULL && tb.ptr[0] == '\0');
    sense_error_free(err);
    /* An argument check's static error, and NULL. */
    err = NULL;
    CHECK_STATUS_ERR(sense_runtime_run_source(NULL, "t", 1, "x", 1, &err),
                     SENSE_STATUS_INVALID_ARGUMENT, err);
    CHECK(sense_error_traceback(err).len == 0);
    sense_error_free(err);
    CHECK(sense_error_traceback(NULL).len == 0);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_nested_calls_innermost_last),
             TEST(test_host_function_failure_shows_its_callers), TEST(test_agent_failing_on_resume),
             TEST(test_empty_without_frames))
