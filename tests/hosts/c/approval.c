/*
 * The approval workflow driven from C: start -> ask_human -> resume.
 * An agent prepares a deploy, asks a human, and deploys or cancels
 * depending on the answer the host resumes it with.
 */
#include "harness.h"

static const char *WORKFLOW =
    "servers = [\"web-1\", \"web-2\"]\n"
    "deployed = []\n"
    "agent release:\n"
    "    print(\"preparing v2.1 for\", len(servers), \"servers\")\n"
    "    answer = ask_human(\"Deploy v2.1 to \" + str(len(servers)) + \" servers? (yes/no)\")\n"
    "    if answer != \"yes\":\n"
    "        print(\"release cancelled:\", answer)\n"
    "        return\n"
    "    for h in servers:\n"
    "        push(deployed, h + \"@v2.1\")\n"
    "    print(\"deployed to\", len(deployed), \"servers\")\n";

/* Starts the workflow and checks it paused on the approval question. */
static int start_and_check_question(sense_runtime *rt, sense_agent *release) {
    sense_error *err = NULL;
    CHECK_STATUS_ERR(harness_run(rt, WORKFLOW, &err), SENSE_STATUS_OK, err);
    CHECK_OK(harness_agent(rt, "release", release));
    sense_agent_status status = SENSE_AGENT_STATUS_FAILED;
    CHECK_OK(sense_agent_get_status(rt, *release, &status, NULL));
    CHECK(status == SENSE_AGENT_STATUS_CREATED);
    CHECK(harness_start(rt, "release", release, SENSE_AGENT_STATUS_PAUSED) == 0);
    return harness_check_pause(rt, *release, SENSE_PAUSE_KIND_ASK_HUMAN,
                               "Deploy v2.1 to 2 servers? (yes/no)");
}

static int test_approved_release_deploys(void) {
    HARNESS_RUNTIME(rt, out);
    sense_agent release;
    CHECK(start_and_check_question(rt, &release) == 0);
    CHECK_STR(text_buf_view(&out), "preparing v2.1 for 2 servers\n");
    CHECK(harness_resume(rt, release, harness_string("yes"), SENSE_AGENT_STATUS_COMPLETED) == 0);
    CHECK_STR(text_buf_view(&out), "preparing v2.1 for 2 servers\ndeployed to 2 servers\n");
    CHECK(harness_check_pause(rt, release, SENSE_PAUSE_KIND_NONE, NULL) == 0);

    /* The program's state is visible to the host afterwards. */
    sense_value *deployed = NULL;
    CHECK_OK(sense_runtime_global(rt, "deployed", 8, &deployed, NULL));
    size_t n = 0;
    CHECK_OK(sense_value_list_len(deployed, &n, NULL));
    CHECK(n == 2);
    CHECK(harness_check_string(harness_item(deployed, 0), "web-1@v2.1") == 0);
    sense_value_free(deployed);

    /* A completed agent cannot be resumed: WRONG_STATE with the runtime's words. */
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_agent_resume(rt, release, NULL, NULL, &err), SENSE_STATUS_WRONG_STATE,
                     err);
    CHECK(sense_error_status(err) == SENSE_STATUS_WRONG_STATE);
    CHECK_CONTAINS(sense_error_message(err), "status is 'completed', not 'paused'");
    sense_error_free(err);

    sense_runtime_free(rt);
    return 0;
}

static int test_rejected_release_cancels(void) {
    HARNESS_RUNTIME(rt, out);
    sense_agent release;
    CHECK(start_and_check_question(rt, &release) == 0);

    CHECK(harness_resume(rt, release, harness_string("no, not on a Friday"),
                         SENSE_AGENT_STATUS_COMPLETED) == 0);
    CHECK_STR(text_buf_view(&out),
              "preparing v2.1 for 2 servers\nrelease cancelled: no, not on a Friday\n");

    size_t n = 99;
    CHECK_GLOBAL(rt, "deployed", sense_value_list_len, &n);
    CHECK(n == 0);
    sense_runtime_free(rt);
    return 0;
}

/* A paused agent that is never resumed leaks nothing (valgrind checks). */
static int test_paused_agent_freed_with_runtime(void) {
    HARNESS_RUNTIME(rt, out);
    sense_agent release;
    CHECK(start_and_check_question(rt, &release) == 0);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_approved_release_deploys), TEST(test_rejected_release_cancels),
             TEST(test_paused_agent_freed_with_runtime))
