/* The allocation-free hand-off (issue 15): resuming with an Int, Float,
 * Bool or String passed directly (`sense_agent_resume_int` and siblings),
 * then reading the pause value as a view. Nothing to make or free per
 * round trip. */
#include "harness.h"

#include <stdint.h>

static const char *ECHO =
    "agent worker:\n"
    "    got = []\n"
    "    x = 0\n"
    "    while true:\n"
    "        x = pause(x)\n"
    "        push(got, x)\n";

static int test_each_kind_arrives(void) {
    HARNESS_PAUSED(rt, out, ECHO, a, "worker");
    sense_agent_status st;

    // ANCHOR: resume_int
    int64_t sum = 0;
    for (int64_t i = 1; i <= 1000; i++) {
        sense_agent_resume_int(rt, a, i, &st, NULL); /* nothing allocated */
        int64_t v = 0;
        sense_agent_pause_reason_int(rt, a, &v, NULL); /* read in place */
        sum += v;
    }
    // ANCHOR_END: resume_int
    CHECK(st == SENSE_AGENT_STATUS_PAUSED);
    CHECK(sum == 500500);

    double f = 0;
    CHECK_OK(sense_agent_resume_float(rt, a, 2.5, &st, NULL));
    CHECK_OK(sense_agent_pause_reason_float(rt, a, &f, NULL));
    CHECK(f == 2.5);
    bool b = false;
    CHECK_OK(sense_agent_resume_bool(rt, a, true, &st, NULL));
    CHECK_OK(sense_agent_pause_reason_bool(rt, a, &b, NULL));
    CHECK(b);
    sense_str s;
    CHECK_OK(sense_agent_resume_string(rt, a, "h\xc3\xa9llo", 6, &st, NULL));
    CHECK_OK(sense_agent_pause_reason_string(rt, a, &s, NULL));
    CHECK_STR(s, "h\xc3\xa9llo");
    CHECK_OK(sense_agent_resume_string(rt, a, NULL, 0, &st, NULL)); /* "" */
    CHECK_OK(sense_agent_pause_reason_string(rt, a, &s, NULL));
    CHECK(s.len == 0);
    CHECK(st == SENSE_AGENT_STATUS_PAUSED);
    sense_runtime_free(rt);
    return 0;
}

static int test_errors(void) {
    HARNESS_AGENT(rt, out, "agent worker:\n    x = pause()\n    y = 1 / x\n", a, "worker");
    sense_agent_status st;
    /* Not started yet: wrong state. */
    CHECK_STATUS(sense_agent_resume_int(rt, a, 1, &st, NULL), SENSE_STATUS_WRONG_STATE);
    CHECK_OK(sense_agent_start(rt, a, &st, NULL));
    CHECK_STATUS(sense_agent_resume_string(rt, a, "\xff", 1, &st, NULL), SENSE_STATUS_INVALID_UTF8);
    CHECK_STATUS(sense_agent_resume_string(rt, a, NULL, 2, &st, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_agent_resume_bool(NULL, a, true, &st, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_agent forged = a;
    forged.serial += 1000;
    CHECK_STATUS(sense_agent_resume_float(rt, forged, 1.0, &st, NULL), SENSE_STATUS_NOT_FOUND);
    /* Still paused after the refusals; a body error is a runtime error. */
    sense_error *err = NULL;
    CHECK_ERROR_HAS(sense_agent_resume_int(rt, a, 0, &st, &err), SENSE_STATUS_RUNTIME_ERROR, err,
                    "division by zero");
    CHECK_OK(sense_agent_get_status(rt, a, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_FAILED);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_each_kind_arrives), TEST(test_errors))
