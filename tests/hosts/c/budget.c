/* Budgets that pause (issue 25) from a C host: an agent over its token
 * budget pauses with SENSE_PAUSE_KIND_BUDGET before its next model call,
 * the reason says what was spent, and resuming with an Int (the new
 * token budget) makes the held-back call exactly there. */
#include "harness.h"

#include <stdint.h>

static const char *WORKER =
    "model m = inference(\"mock\", response_template: \"ok: {prompt}\")\n"
    "set delegation = m\n"
    "agent worker:\n"
    "    a = ask(\"first question\")\n"
    "    b = ask(\"second question\")\n"
    "    print(b.value)\n"
    "set_budget(worker, tokens: 5)\n";

static int test_budget_pause_and_resume(void) {
    HARNESS_PAUSED(rt, out, WORKER, a, "worker");
    sense_agent_status st;
    sense_pause_kind kind;
    CHECK_OK(sense_agent_pause_kind(rt, a, &kind, NULL));
    CHECK(kind == SENSE_PAUSE_KIND_BUDGET);
    sense_str reason;
    CHECK_OK(sense_agent_pause_reason_string(rt, a, &reason, NULL));
    /* "first question" is 14 characters (4 tokens), "ok: first question" 18 (5). */
    CHECK_STR(reason, "token budget reached: 9 of 5 tokens spent (1 call, 9 tokens (4 in, 5 out))");
    CHECK(strstr(out.data, "ok: second question") == NULL);
    /* A value that is no budget is refused; the agent stays paused. */
    CHECK(sense_agent_resume_bool(rt, a, true, &st, NULL) != SENSE_STATUS_OK);
    CHECK_OK(sense_agent_pause_kind(rt, a, &kind, NULL));
    CHECK(kind == SENSE_PAUSE_KIND_BUDGET);
    /* A new token budget: the second call is made and the agent completes. */
    CHECK_OK(sense_agent_resume_int(rt, a, 100, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_COMPLETED);
    CHECK(strstr(out.data, "ok: second question\n") != NULL);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_budget_pause_and_resume))
