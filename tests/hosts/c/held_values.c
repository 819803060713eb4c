/* Held values (issue 28, "references like Lua's"): a host keeps any Sense
 * value alive — a function, a closure with its state, a list — reads it
 * back and calls it, after the program rebound its name and after
 * collections; a function a call returns is held and called in turn; a
 * released id stays invalid. */
#include "harness.h"

static const char *PROGRAM =
    "def make_counter(start):\n"
    "    n = start\n"
    "    def next(step):\n"
    "        n = n + step\n"
    "        print(\"n is\", n)\n"
    "        return n\n"
    "    return next\n"
    "def fail(x):\n"
    "    return x / 0\n";

// ANCHOR: held
static int test_call_a_returned_closure_later(void) {
    HARNESS_PROGRAM(rt, out, PROGRAM);
    uint64_t make = 0, counter = 0;
    CHECK_OK(sense_runtime_hold_global(rt, "make_counter", 12, &make, NULL));
    CHECK(make != 0);

    /* The program rebinds the name: the held function is unaffected. */
    CHECK_OK(harness_run(rt, "make_counter = nil\n", NULL));
    sense_value *start = sense_value_new_int(10);
    const sense_value *args[1] = {start};
    sense_value *shown = NULL;
    CHECK_OK(sense_runtime_call_held(rt, make, args, 1, &shown, &counter, NULL));
    sense_value_free(start);
    CHECK(counter != 0 && counter != make);
    sense_value_kind kind;
    CHECK_OK(sense_value_get_kind(shown, &kind, NULL));
    CHECK(kind == SENSE_VALUE_KIND_OPAQUE);
    sense_value_free(shown);

    /* Nothing in Sense refers to the closure; collections run meanwhile. */
    CHECK_OK(harness_run(rt,
                         "junk = []\nfor i in range(3000):\n    push(junk, [i, str(i)])\njunk = nil\n",
                         NULL));
    sense_value *step = sense_value_new_int(5);
    const sense_value *step_args[1] = {step};
    sense_value *got = NULL;
    CHECK_OK(sense_runtime_call_held(rt, counter, step_args, 1, &got, NULL, NULL));
    CHECK(harness_check_int(got, 15) == 0);
    sense_value_free(got);
    /* Result not wanted: both outputs NULL. */
    CHECK_OK(sense_runtime_call_held(rt, counter, step_args, 1, NULL, NULL, NULL));
    sense_value_free(step);
    CHECK_STR(text_buf_view(&out), "n is 15\nn is 20\n");
    // ANCHOR_END: held

    /* Errors keep their location; a wrong argument count is an error. */
    sense_error *err = NULL;
    CHECK_STATUS_ERR(sense_runtime_call_held(rt, counter, NULL, 0, &got, NULL, &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    sense_error_free(err);
    uint64_t fail = 0;
    CHECK_OK(sense_runtime_hold_global(rt, "fail", 4, &fail, NULL));
    sense_value *one = sense_value_new_int(1);
    const sense_value *one_args[1] = {one};
    err = NULL;
    CHECK_STATUS_ERR(sense_runtime_call_held(rt, fail, one_args, 1, &got, NULL, &err),
                     SENSE_STATUS_RUNTIME_ERROR, err);
    CHECK(sense_error_line(err) == 9);
    CHECK_CONTAINS(sense_error_message(err), "division by zero");
    sense_error_free(err);
    sense_value_free(one);

    /* Released: the id is invalid, and never given again. */
    CHECK_OK(sense_runtime_release_held(rt, counter, NULL));
    CHECK_STATUS(sense_runtime_release_held(rt, counter, NULL), SENSE_STATUS_NOT_FOUND);
    CHECK_STATUS(sense_runtime_call_held(rt, counter, NULL, 0, &got, NULL, NULL),
                 SENSE_STATUS_NOT_FOUND);
    CHECK_STATUS(sense_runtime_held_value(rt, counter, &got, NULL), SENSE_STATUS_NOT_FOUND);
    CHECK_STATUS(sense_runtime_hold_global(rt, "nothing_here", 12, &fail, NULL),
                 SENSE_STATUS_NOT_FOUND);
    CHECK_OK(sense_runtime_release_held(rt, make, NULL));
    /* fail stays held: freeing the runtime frees it. */
    sense_runtime_free(rt);
    return 0;
}

static int test_hold_a_host_value(void) {
    HARNESS_RUNTIME(rt, out);
    sense_value *list = sense_value_new_list();
    sense_value *item = harness_string("kept");
    CHECK_OK(sense_value_list_push(list, item, NULL));
    sense_value_free(item);
    uint64_t id = 0, nil_id = 0, len_id = 0;
    CHECK_OK(sense_runtime_hold_value(rt, list, &id, NULL));
    CHECK_OK(sense_runtime_hold_value(rt, NULL, &nil_id, NULL));
    CHECK(id != nil_id);
    sense_value *back = NULL;
    CHECK_OK(sense_runtime_held_value(rt, id, &back, NULL));
    const sense_value *first = NULL;
    CHECK_OK(sense_value_list_get(back, 0, &first, NULL));
    sense_str s;
    CHECK_OK(sense_value_as_string(first, &s, NULL));
    CHECK_STR(s, "kept");
    sense_value_free(back);

    /* A builtin, held and called with a copy of the list. */
    CHECK_OK(sense_runtime_hold_global(rt, "len", 3, &len_id, NULL));
    const sense_value *args[1] = {list};
    sense_value *n = NULL;
    CHECK_OK(sense_runtime_call_held(rt, len_id, args, 1, &n, NULL, NULL));
    CHECK(harness_check_int(n, 1) == 0);
    sense_value_free(n);
    sense_value_free(list);

    /* nil is not callable: a runtime error, not a crash. */
    sense_error *err = NULL;
    CHECK_ERROR_HAS(sense_runtime_call_held(rt, nil_id, NULL, 0, &n, NULL, &err),
                    SENSE_STATUS_RUNTIME_ERROR, err, "not callable");

    /* Argument checks. */
    CHECK_STATUS(sense_runtime_hold_value(NULL, NULL, &id, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_hold_value(rt, NULL, NULL, NULL), SENSE_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(sense_runtime_call_held(rt, len_id, NULL, 1, &n, NULL, NULL),
                 SENSE_STATUS_INVALID_ARGUMENT);
    sense_runtime_free(rt);
    return 0;
}

HARNESS_MAIN(TEST(test_call_a_returned_closure_later), TEST(test_hold_a_host_value))
