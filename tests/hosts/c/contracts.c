/* What the header promises, checked (issue 16, "make the docs and the code
 * agree"): restoring needs only the host functions the snapshot's code
 * calls; a pause handle whose runtime was freed reports NOT_FOUND; a resume
 * value given to an agent waiting in receive() becomes a message, never
 * dropped; NULL means nil for send as for resume and call_return. */
#include "harness.h"

/* What the host functions here answer. */
static int64_t answer = 42;

static int test_restore_needs_only_called_host_functions(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(
        sense_runtime_register_fn(rt, "unused", 6, 0, harness_answer_int, &answer, NULL, NULL));
    CHECK_OK(sense_runtime_register_fn(rt, "used", 4, 0, harness_answer_int, &answer, NULL, NULL));
    CHECK_OK(harness_run(rt, "agent a:\n    x = pause(\"go?\")\n    print(used() + x)\n", NULL));
    sense_agent a;
    CHECK_OK(harness_agent(rt, "a", &a));
    CHECK_OK(sense_agent_start(rt, a, NULL, NULL));
    sense_bytes *snap = NULL;
    CHECK_OK(sense_runtime_snapshot(rt, &snap, NULL));
    sense_runtime_free(rt);

    /* Without `used`: refused, naming it; the runtime stays new. */
    HARNESS_RUNTIME(r2, out2);
    sense_error *err = NULL;
    CHECK_ERROR_HAS(sense_runtime_restore(r2, sense_bytes_data(snap), sense_bytes_len(snap), &err),
                    SENSE_STATUS_RUNTIME_ERROR, err, "host function 'used'");
    /* With `used` only: restored, and it runs. */
    CHECK_OK(sense_runtime_register_fn(r2, "used", 4, 0, harness_answer_int, &answer, NULL, NULL));
    CHECK_OK(sense_runtime_restore(r2, sense_bytes_data(snap), sense_bytes_len(snap), NULL));
    sense_bytes_free(snap);
    CHECK_OK(harness_agent(r2, "a", &a));
    sense_value *one = sense_value_new_int(1);
    sense_agent_status st;
    CHECK_OK(sense_agent_resume(r2, a, one, &st, NULL));
    sense_value_free(one);
    CHECK(st == SENSE_AGENT_STATUS_COMPLETED);
    CHECK_STR(text_buf_view(&out2), "43\n");
    /* Calling the unregistered one is a clear runtime error... */
    err = NULL;
    CHECK_ERROR_HAS(harness_run(r2, "unused()\n", &err), SENSE_STATUS_RUNTIME_ERROR, err,
                    "not available");
    /* ...until it is registered. */
    CHECK_OK(
        sense_runtime_register_fn(r2, "unused", 6, 0, harness_answer_int, &answer, NULL, NULL));
    CHECK_PRINTS(r2, out2, "print(unused())\n", "43\n42\n");
    sense_runtime_free(r2);
    return 0;
}

static int test_pause_handle_after_runtime_free(void) {
    HARNESS_AGENT(rt, out, "agent a:\n    pause()\n", a, "a");
    sense_pause_handle *h = NULL;
    CHECK_OK(sense_pause_handle_new(rt, a, &h, NULL));
    sense_runtime_free(rt);
    bool newly = true;
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_pause_handle_request(h, &newly, &err), SENSE_STATUS_NOT_FOUND, err);
    CHECK(!newly);
    CHECK_CONTAINS(sense_error_message(err), "runtime has been freed");
    sense_error_free(err);
    bool pending = true;
    CHECK_OK(sense_pause_handle_is_requested(h, &pending, NULL));
    CHECK(!pending);
    sense_pause_handle_free(h);
    return 0;
}

static int test_resume_value_reaches_an_agent_in_receive(void) {
    HARNESS_AGENT(rt, out,
                  "agent inbox:\n"
                  "    while true:\n"
                  "        m = receive()\n"
                  "        print(\"got\", m)\n",
                  inbox, "inbox");
    sense_agent_status st;
    CHECK_OK(sense_agent_start(rt, inbox, &st, NULL));
    CHECK(harness_check_pause(rt, inbox, SENSE_PAUSE_KIND_WAITING_MESSAGE, NULL) == 0);
    sense_value *queued = harness_string("queued");
    sense_value *direct = harness_string("direct");
    CHECK_OK(sense_agent_send(rt, inbox, queued, NULL));
    CHECK_OK(sense_agent_resume(rt, inbox, direct, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_PAUSED);
    CHECK_STR(text_buf_view(&out), "got queued\ngot direct\n");
    /* NULL means nil for send, as for resume. */
    CHECK_OK(sense_agent_send(rt, inbox, NULL, NULL));
    CHECK_OK(sense_agent_resume(rt, inbox, NULL, &st, NULL));
    CHECK_STR(text_buf_view(&out), "got queued\ngot direct\ngot nil\n");
    sense_value_free(queued);
    sense_value_free(direct);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_restore_needs_only_called_host_functions),
             TEST(test_pause_handle_after_runtime_free),
             TEST(test_resume_value_reaches_an_agent_in_receive))
