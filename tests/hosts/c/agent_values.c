/* Agents inside values (issue 16): an agent taken out of a call result, a
 * pause reason, a host function's argument or a list item is driven by
 * its id; a value naming an agent goes back into Sense as the same agent;
 * an id of another runtime is refused with a clear error. */
#include "harness.h"

#include <stdint.h>

static const char *TEAM =
    "agent w:\n"
    "    got = pause(\"w waits\")\n"
    "agent boss:\n"
    "    answer = pause([1, [w]])\n"
    "    note = answer.name\n"
    "def pick():\n"
    "    return [0, w]\n"
    "def same(a):\n"
    "    return a == w\n";

/* Calls `same(v)` and stores the Bool it returns in *out. */
static sense_status call_same(sense_runtime *rt, const sense_value *v, bool *out, sense_error **err) {
    const sense_value *args[1] = {v};
    sense_value *result = NULL;
    sense_status st = sense_runtime_call(rt, "same", 4, args, 1, &result, err);
    if (st == SENSE_STATUS_OK) st = sense_value_as_bool(result, out, err);
    sense_value_free(result);
    return st;
}

static int test_agent_in_a_call_result(void) {
    HARNESS_PROGRAM(rt, out, TEAM);
    sense_value *list = NULL;
    CHECK_OK(sense_runtime_call(rt, "pick", 4, NULL, 0, &list, NULL));
    const sense_value *v = harness_item(list, 1);
    CHECK(v != NULL);
    sense_value_kind kind;
    CHECK_OK(sense_value_get_kind(v, &kind, NULL));
    CHECK(kind == SENSE_VALUE_KIND_AGENT);
    sense_str s;
    CHECK_OK(sense_value_type_name(v, &s, NULL));
    CHECK_STR(s, "Agent");
    CHECK_OK(sense_value_as_string(v, &s, NULL));
    CHECK_STR(s, "<agent w status=created>");

    sense_agent w, by_name;
    CHECK_OK(sense_value_as_agent(v, &w, NULL));
    CHECK_OK(harness_agent(rt, "w", &by_name));
    CHECK(w.serial == by_name.serial && w.index == by_name.index);
    sense_agent_status st;
    CHECK_OK(sense_agent_start(rt, w, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_PAUSED);

    /* Not an agent: INVALID_ARGUMENT, *out untouched. */
    sense_agent untouched = {77, 7};
    sense_error *err = NULL;
    CHECK_ERROR(sense_value_as_agent(harness_item(list, 0), &untouched, &err),
                SENSE_STATUS_INVALID_ARGUMENT, err, "the value is not an Agent");
    CHECK(untouched.serial == 77 && untouched.index == 7);
    CHECK_STATUS(sense_value_as_agent(NULL, &untouched, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_value_as_agent(v, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    sense_value_free(list);
    sense_runtime_free(rt);
    return 0;
}

static int test_agent_in_a_pause_reason(void) {
    HARNESS_PROGRAM(rt, out, TEAM);
    sense_agent boss, w;
    CHECK_OK(harness_agent(rt, "boss", &boss));
    sense_agent_status st;
    CHECK_OK(sense_agent_start(rt, boss, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_PAUSED);
    sense_value *reason = NULL;
    CHECK_OK(sense_agent_pause_reason(rt, boss, &reason, NULL));
    CHECK_OK(sense_value_as_agent(harness_item(harness_item(reason, 1), 0), &w, NULL));
    CHECK_OK(sense_agent_start(rt, w, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_PAUSED);

    /* The copy keeps its printed form; resuming the boss with the agent
     * (a value made from the id) hands it the agent itself. */
    sense_value *wv = sense_value_new_agent(w);
    CHECK(wv != NULL);
    CHECK_OK(sense_agent_resume(rt, boss, wv, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_COMPLETED);
    sense_value *note = NULL;
    CHECK_OK(sense_agent_member(rt, boss, "note", 4, &note, NULL));
    sense_str s;
    CHECK_OK(sense_value_as_string(note, &s, NULL));
    CHECK_STR(s, "w");
    FREE_VALUES(note, wv, reason);
    sense_runtime_free(rt);
    return 0;
}

/* relay(list): returns the agent in list[0], checking it is one. */
static int relayed = 0;
static void host_relay(void *user_data, sense_call *call) {
    (void)user_data;
    const sense_value *list = NULL;
    sense_agent a;
    if (sense_call_arg(call, 0, &list, NULL) != SENSE_STATUS_OK ||
        sense_value_as_agent(harness_item(list, 0), &a, NULL) != SENSE_STATUS_OK) {
        sense_call_fail(call, "want [agent]", 12, NULL);
        return;
    }
    relayed++;
    sense_value *back = sense_value_new_agent(a);
    sense_call_return(call, back, NULL);
    sense_value_free(back);
}

static int test_host_function_receives_and_returns_agents(void) {
    HARNESS_RUNTIME(rt, out);
    CHECK_OK(sense_runtime_register_fn(rt, "relay", 5, 1, host_relay, NULL, NULL, NULL));
    CHECK_OK(harness_run(rt,
                         "agent w:\n    n = 1\n"
                         "back = relay([w])\n"
                         "print(back == w, back.name, back)\n",
                         NULL));
    CHECK(relayed == 1);
    CHECK_STR(text_buf_view(&out), "true w <agent w status=created>\n");
    sense_runtime_free(rt);
    return 0;
}

static int test_values_back_in_and_other_runtimes(void) {
    text_buf out_a, out_b;
    sense_runtime *a = harness_runtime(&out_a);
    sense_runtime *b = harness_runtime(&out_b);
    CHECK(a != NULL && b != NULL);
    CHECK_OK(harness_run(a, TEAM, NULL));
    CHECK_OK(harness_run(b, TEAM, NULL));
    sense_agent wa;
    CHECK_OK(harness_agent(a, "w", &wa));
    sense_value *v = sense_value_new_agent(wa);
    CHECK(v != NULL);
    sense_str s;
    CHECK_OK(sense_value_as_string(v, &s, NULL));
    CHECK_CONTAINS(s, "<agent #");

    bool same = false;
    CHECK_OK(call_same(a, v, &same, NULL));
    CHECK(same);
    /* In a list, and as a global. */
    sense_value *list = sense_value_new_list();
    CHECK_OK(sense_value_list_push(list, v, NULL));
    CHECK_OK(sense_runtime_set_global(a, "held", 4, list, NULL));
    CHECK_PRINTS(a, out_a, "print(held[0] == w)\n", "true\n");

    /* Runtime b runs the same program: a's w is not b's w. */
    sense_error *err = NULL;
    CHECK_STATUS_ERR(call_same(b, v, &same, &err), SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK_CONTAINS(sense_error_message(err), "not an agent of this runtime");
    CHECK_CONTAINS(sense_error_message(err), "another runtime");
    sense_error_free(err);
    err = NULL;
    CHECK_STATUS_ERR(sense_runtime_set_global(b, "held", 4, list, &err), SENSE_STATUS_RUNTIME_ERROR, err);
    sense_error_free(err);
    sense_agent boss_b;
    sense_agent_status st;
    CHECK_OK(harness_agent(b, "boss", &boss_b));
    CHECK_OK(sense_agent_start(b, boss_b, &st, NULL));
    CHECK(sense_agent_resume(b, boss_b, v, &st, NULL) != SENSE_STATUS_OK);
    CHECK_OK(sense_agent_get_status(b, boss_b, &st, NULL));
    CHECK(st == SENSE_AGENT_STATUS_PAUSED);
    CHECK_STATUS(sense_agent_start(b, wa, &st, NULL), SENSE_STATUS_NOT_FOUND);

    /* A forged id is refused the same way. */
    sense_agent forged = {wa.serial + 100000, wa.index};
    sense_value *fv = sense_value_new_agent(forged);
    CHECK_STATUS(call_same(a, fv, &same, NULL), SENSE_STATUS_RUNTIME_ERROR);
    FREE_VALUES(fv, list, v);
    sense_runtime_free(a);
    sense_runtime_free(b);
    return 0;
}

HARNESS_MAIN(TEST(test_agent_in_a_call_result), TEST(test_agent_in_a_pause_reason),
             TEST(test_host_function_receives_and_returns_agents),
             TEST(test_values_back_in_and_other_runtimes))
