/* Agents: lookup, start, resume, status, pause reason and kind, messages,
 * wrong states, stale and forged ids, and the NULL paths. */
#include "harness.h"

static int test_pause_resume_keeps_state(void) {
    HARNESS_AGENT(rt, out,
                  "agent survey:\n"
                  "    total = 0\n"
                  "    for q in [\"a?\", \"b?\", \"c?\"]:\n"
                  "        total = total + pause(q)\n"
                  "    print(total)\n",
                  survey, "survey");
    sense_agent_status status;
    CHECK_OK(sense_agent_start(rt, survey, &status, NULL));
    const char *expected[] = {"a?", "b?", "c?"};
    int64_t answers[] = {1, 20, 300};
    for (int k = 0; k < 3; k++) {
        CHECK(status == SENSE_AGENT_STATUS_PAUSED);
        CHECK(harness_check_pause(rt, survey, SENSE_PAUSE_KIND_SELF_PAUSE, NULL) == 0);
        sense_value *reason = NULL;
        sense_str s;
        CHECK_OK(sense_agent_pause_reason(rt, survey, &reason, NULL));
        CHECK_OK(sense_value_as_string(reason, &s, NULL));
        CHECK_STR(s, expected[k]);
        sense_value_free(reason);
        sense_value *v = sense_value_new_int(answers[k]);
        CHECK_OK(sense_agent_resume(rt, survey, v, &status, NULL));
        sense_value_free(v);
    }
    CHECK(status == SENSE_AGENT_STATUS_COMPLETED);
    CHECK_STR(text_buf_view(&out), "321\n");
    /* The last reason is kept after the agent moves on, as in Sense. */
    sense_value *reason = NULL;
    sense_str s;
    CHECK_OK(sense_agent_pause_reason(rt, survey, &reason, NULL));
    CHECK_OK(sense_value_as_string(reason, &s, NULL));
    CHECK_STR(s, "c?");
    sense_value_free(reason);
    sense_runtime_free(rt);
    return 0;
}

static int test_wrong_states(void) {
    HARNESS_AGENT(rt, out, "agent a:\n    pause()\n", a, "a");

    /* Resuming an agent that was never started. */
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_agent_resume(rt, a, NULL, NULL, &err), SENSE_STATUS_WRONG_STATE, err);
    CHECK_STR(sense_error_class(err), "SenseRuntimeError");
    CHECK_CONTAINS(sense_error_message(err), "status is 'created', not 'paused'");
    sense_error_free(err);

    /* A pause reason before any pause is nil. */
    sense_value *reason = NULL;
    sense_value_kind kind;
    CHECK_OK(sense_agent_pause_reason(rt, a, &reason, NULL));
    CHECK_OK(sense_value_get_kind(reason, &kind, NULL));
    CHECK(kind == SENSE_VALUE_KIND_NIL);
    sense_value_free(reason);

    CHECK_OK(sense_agent_start(rt, a, NULL, NULL));
    /* Starting twice. */
    err = NULL;
    CHECK_ERROR_HAS(sense_agent_start(rt, a, NULL, &err), SENSE_STATUS_WRONG_STATE, err,
                    "has already been started");
    /* Still paused; resuming works. */
    sense_agent_status status;
    CHECK_OK(sense_agent_resume(rt, a, NULL, &status, NULL));
    CHECK(status == SENSE_AGENT_STATUS_COMPLETED);
    sense_runtime_free(rt);
    return 0;
}

static int test_lookup_not_found(void) {
    HARNESS_PROGRAM(rt, out, "x = 1\nagent real:\n    pause()\n");
    sense_agent a;
    sense_error *err = NULL;
    CHECK_ERROR(sense_agent_lookup(rt, "ghost", 5, &a, &err), SENSE_STATUS_NOT_FOUND, err,
                "no agent named 'ghost'");
    CHECK_ERROR(sense_agent_lookup(rt, "x", 1, &a, &err), SENSE_STATUS_NOT_FOUND, err,
                "'x' is not an agent");

    /* Globals. */
    sense_value *v = NULL;
    err = NULL;
    CHECK_ERROR(sense_runtime_global(rt, "nope", 4, &v, &err), SENSE_STATUS_NOT_FOUND, err,
                "no global named 'nope'");
    CHECK(v == NULL);
    CHECK_STATUS(sense_runtime_global(NULL, "x", 1, &v, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_global(rt, NULL, 1, &v, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_global(rt, "x", 1, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_global(rt, "\xff", 1, &v, NULL), SENSE_STATUS_INVALID_UTF8);
    sense_runtime_free(rt);
    return 0;
}

/* Ids of agents that are gone, or never were, are NOT_FOUND everywhere. */
static int test_stale_and_forged_ids(void) {
    HARNESS_AGENT(rt, out, "agent a:\n    pause()\n", a, "a");
    sense_agent forged = a;
    forged.serial ^= 0xdeadbeef;
    sense_agent out_of_range = a;
    out_of_range.index = 0xfffffff0u;

    sense_agent ids[] = {forged, out_of_range};
    for (int k = 0; k < 2; k++) {
        sense_agent id = ids[k];
        sense_agent_status status;
        sense_pause_kind kind;
        sense_value *v = NULL;
        sense_value *msg = sense_value_new_int(1);
        sense_error *err = NULL;
        CHECK_ERROR(sense_agent_get_status(rt, id, &status, &err), SENSE_STATUS_NOT_FOUND, err,
                    "agent no longer exists");
        CHECK_STATUS(sense_agent_start(rt, id, &status, NULL), SENSE_STATUS_NOT_FOUND);
        CHECK_STATUS(sense_agent_resume(rt, id, NULL, &status, NULL), SENSE_STATUS_NOT_FOUND);
        CHECK_STATUS(sense_agent_pause_kind(rt, id, &kind, NULL), SENSE_STATUS_NOT_FOUND);
        CHECK_STATUS(sense_agent_pause_reason(rt, id, &v, NULL), SENSE_STATUS_NOT_FOUND);
        CHECK_STATUS(sense_agent_send(rt, id, msg, NULL), SENSE_STATUS_NOT_FOUND);
        sense_value_free(msg);
    }

    /* A collected agent: drop the only reference and allocate until the
     * collector has run (bounded). */
    CHECK_OK(sense_agent_start(rt, a, NULL, NULL));
    CHECK_OK(harness_run(rt, "a = nil\n", NULL));
    sense_agent_status status;
    sense_status st = SENSE_STATUS_OK;
    for (int round = 0; round < 50 && st == SENSE_STATUS_OK; round++) {
        CHECK_OK(harness_run(rt, "junk = []\nfor i in range(0, 20000):\n    junk = [i, junk]\njunk = nil\n", NULL));
        st = sense_agent_get_status(rt, a, &status, NULL);
    }
    CHECK(st == SENSE_STATUS_NOT_FOUND);
    sense_runtime_free(rt);
    return 0;
}

static int test_messages(void) {
    HARNESS_PAUSED(rt, out,
                   "agent inbox:\n"
                   "    while true:\n"
                   "        m = receive()\n"
                   "        if m == \"stop\":\n"
                   "            return\n"
                   "        print(\"got\", m)\n",
                   inbox, "inbox");
    sense_agent_status status;
    CHECK(harness_check_pause(rt, inbox, SENSE_PAUSE_KIND_WAITING_MESSAGE, NULL) == 0);

    /* Resuming with nothing queued leaves it waiting. */
    CHECK_OK(sense_agent_resume(rt, inbox, NULL, &status, NULL));
    CHECK(status == SENSE_AGENT_STATUS_PAUSED);
    CHECK(out.len == 0);

    sense_value *one = harness_string("one");
    sense_value *two = sense_value_new_list();
    sense_value *n = sense_value_new_int(2);
    CHECK_OK(sense_value_list_push(two, n, NULL));
    CHECK_OK(sense_agent_send(rt, inbox, one, NULL));
    CHECK_OK(sense_agent_send(rt, inbox, two, NULL));
    CHECK_OK(sense_agent_resume(rt, inbox, NULL, &status, NULL));
    CHECK(status == SENSE_AGENT_STATUS_PAUSED);
    CHECK_STR(text_buf_view(&out), "got one\ngot [2]\n");

    sense_value *stop = harness_string("stop");
    CHECK_OK(sense_agent_send(rt, inbox, stop, NULL));
    CHECK_OK(sense_agent_resume(rt, inbox, NULL, &status, NULL));
    CHECK(status == SENSE_AGENT_STATUS_COMPLETED);

    /* Opaque values cannot be sent. */
    sense_value *fn = NULL;
    CHECK_OK(sense_runtime_global(rt, "print", 5, &fn, NULL));
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_agent_send(rt, inbox, fn, &err), SENSE_STATUS_RUNTIME_ERROR, err);
    sense_error_free(err);

    CHECK_STATUS(sense_agent_send(NULL, inbox, one, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    /* NULL is nil, as for sense_agent_resume (issue 16). */
    CHECK_OK(sense_agent_send(rt, inbox, NULL, NULL));
    FREE_VALUES(fn, one, two, n, stop);
    sense_runtime_free(rt);
    return 0;
}

static int test_null_arguments(void) {
    HARNESS_PROGRAM(rt, out, "agent a:\n    pause()\n");
    sense_agent a;
    sense_agent_status status;
    sense_pause_kind kind;
    sense_value *v = NULL;
    sense_error *err = NULL;
    CHECK_ERROR(sense_agent_lookup(NULL, "a", 1, &a, &err), SENSE_STATUS_INVALID_ARGUMENT, err,
                "argument `runtime` is NULL");
    CHECK_STATUS(sense_agent_lookup(rt, NULL, 1, &a, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_agent_lookup(rt, "a", 1, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_agent_lookup(rt, "\xff", 1, &a, NULL), SENSE_STATUS_INVALID_UTF8);
    CHECK_OK(sense_agent_lookup(rt, "a", 1, &a, NULL));
    CHECK_STATUS(sense_agent_start(NULL, a, &status, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_agent_resume(NULL, a, NULL, &status, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_agent_get_status(NULL, a, &status, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_agent_get_status(rt, a, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_agent_pause_kind(NULL, a, &kind, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_agent_pause_kind(rt, a, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_agent_pause_reason(NULL, a, &v, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_agent_pause_reason(rt, a, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    /* status_out is optional. */
    CHECK_OK(sense_agent_start(rt, a, NULL, NULL));
    CHECK_OK(sense_agent_get_status(rt, a, &status, NULL));
    CHECK(status == SENSE_AGENT_STATUS_PAUSED);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_pause_resume_keeps_state), TEST(test_wrong_states),
             TEST(test_lookup_not_found), TEST(test_stale_and_forged_ids), TEST(test_messages),
             TEST(test_null_arguments))
